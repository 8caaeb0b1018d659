"""Hidden suite for the Qwen3-Next norms kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. The
contract follows transformers' modeling_qwen3_next.py: Qwen3NextRMSNorm (weight zeros, gain
1 + weight, computed in float32, `type_as(x)`) and Qwen3NextRMSNormGated (weight ones, norm
before the silu gate, `.to(input_dtype)`), with the gate made optional. Inputs and weights are
drawn from the run's seed; the forward cases load random weights, since at their initial values
several mistakes give the right output.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from normkata.grading.checks import (
    DEVICES,
    STATEFUL,
    Harness,
    Input,
    Misconception,
    call_on,
    call_text,
    draw,
    expect_keys,
    expect_parameters,
    fail,
    misconceptions,
    own_errors,
    randn,
    say,
)
from normkata.grading.contract import TOLERANCES, Category, Tolerance, dtype_name, tolerance_for
from normkata.grading.messages import Failure, Step

MISTAKES = misconceptions("qwen3_next_norms")  # titles and hints: kata.yaml
GAIN_NOT_OFFSET = MISTAKES["qn-gain-not-offset"]
INIT_ONES = MISTAKES["qn-weight-init-ones"]
MEAN_SUBTRACTED = MISTAKES["qn-mean-subtracted"]
EPS_OUTSIDE = MISTAKES["qn-eps-outside-sqrt"]
NO_UPCAST = MISTAKES["qn-no-fp32-upcast"]
OUTPUT_PROMOTED = MISTAKES["qn-output-promoted"]
GATE_BEFORE_NORM = MISTAKES["qn-gate-before-norm"]
SIGMOID_GATE = MISTAKES["qn-sigmoid-gate"]
GATED_ONE_PLUS = MISTAKES["qn-gated-one-plus-weight"]
GATE_IGNORED = MISTAKES["qn-gate-ignored"]
GATE_REQUIRED = MISTAKES["qn-gate-required"]

ZC, GATED = "ZeroCentredRMSNorm", "GatedRMSNorm"
HALF = (torch.float16, torch.bfloat16)
Suspects = list[tuple[Misconception, torch.Tensor]]


def _needs_a_gate(failure: Failure) -> bool:
    """forward(x) raised because the code uses the gate that was not given (F.silu(None), None.float())."""
    return failure.stage == "forward" and "NoneType" in failure.message


ERROR_SUSPECTS = [(GATE_REQUIRED, _needs_a_gate)]


# -- the truth and the mistakes ----------------------------------------------------------------


def _rms(x: torch.Tensor, eps: float, *, outside: bool = False) -> torch.Tensor:
    ms = x.pow(2).mean(-1, keepdim=True)
    return x / (ms.sqrt() + eps) if outside else x * torch.rsqrt(ms + eps)


def zc_reference(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """The reference module in float64 on the (already quantised) input."""
    from normkata_reference_qwen3_next_norms import ZeroCentredRMSNorm  # type: ignore[import-not-found]

    module = ZeroCentredRMSNorm(x.shape[-1], eps=eps, dtype=torch.float64)
    module.weight.data.copy_(weight.double().cpu())
    with torch.no_grad():
        return module(x.double().cpu())


def gated_reference(x: torch.Tensor, weight: torch.Tensor, eps: float, gate: torch.Tensor | None) -> torch.Tensor:
    from normkata_reference_qwen3_next_norms import GatedRMSNorm  # type: ignore[import-not-found]

    module = GatedRMSNorm(x.shape[-1], eps=eps, dtype=torch.float64)
    module.weight.data.copy_(weight.double().cpu())
    with torch.no_grad():
        return module(x.double().cpu(), None if gate is None else gate.double().cpu())


def zc_suspects(x: torch.Tensor, weight: torch.Tensor, eps: float) -> Suspects:
    x64, w = x.double().cpu(), weight.double().cpu()
    found = [
        (GAIN_NOT_OFFSET, _rms(x64, eps) * w),
        (INIT_ONES, _rms(x64, eps) * (2 + w)),  # a gain of 1 + weight with weight that started at 1
        (MEAN_SUBTRACTED, F.layer_norm(x64, (x.shape[-1],), eps=eps) * (1 + w)),
        (EPS_OUTSIDE, _rms(x64, eps, outside=True) * (1 + w)),
    ]
    if x.dtype in HALF:
        xh = x.cpu()
        found.append((NO_UPCAST, (_rms(xh, eps) * (1 + weight.cpu().to(x.dtype))).double()))
    return found


def gated_suspects(x: torch.Tensor, weight: torch.Tensor, eps: float, gate: torch.Tensor | None) -> Suspects:
    x64, w = x.double().cpu(), weight.double().cpu()
    normed = _rms(x64, eps)
    if gate is None:
        found = [
            (GATED_ONE_PLUS, normed * (1 + w)),
            (EPS_OUTSIDE, _rms(x64, eps, outside=True) * w),
            (MEAN_SUBTRACTED, F.layer_norm(x64, (x.shape[-1],), eps=eps) * w),
        ]
    else:
        g = gate.double().cpu()
        found = [
            (GATE_BEFORE_NORM, _rms(x64 * F.silu(g), eps) * w),
            (SIGMOID_GATE, normed * w * torch.sigmoid(g)),
            (GATED_ONE_PLUS, normed * (1 + w) * F.silu(g)),
            (GATE_IGNORED, normed * w),
            (EPS_OUTSIDE, _rms(x64, eps, outside=True) * w * F.silu(g)),
            (MEAN_SUBTRACTED, F.layer_norm(x64, (x.shape[-1],), eps=eps) * w * F.silu(g)),
        ]
    if x.dtype in HALF:
        xh = x.cpu()
        naive = _rms(xh, eps) * weight.cpu().to(x.dtype)
        if gate is not None:
            naive = naive * F.silu(gate.cpu())
        found.append((NO_UPCAST, naive.double()))
    return found


def zc_weight(d: int, key: int) -> torch.Tensor:
    """A zero-centred weight around 0 (gains around 1), never 0 or 1: the mistakes must show."""
    return randn([d], key, scale=0.4, shift=0.1)


def gated_weight(d: int, key: int) -> torch.Tensor:
    return randn([d], key, scale=0.5, shift=1.0)


def random_gate(shape: tuple[int, ...], key: int) -> Input:
    return Input(randn(shape, key, scale=2.0), "2·N(0,1)")


# -- one forward of each class -----------------------------------------------------------------


def check_zc(
    harness: Harness,
    x: Input,
    *,
    eps: float = 1e-6,
    weight_key: int = 100,
    weight: torch.Tensor | None = None,
    dtype: torch.dtype | None = None,
    tol: Tolerance | None = None,
) -> None:
    d = x.tensor.shape[-1]
    state = {"weight": zc_weight(d, weight_key) if weight is None else weight}
    harness.forward_case(
        ZC,
        [d],
        {"eps": eps},
        x,
        state=state,
        dtype=dtype,
        tol=tol,
        expected=lambda t, st: zc_reference(t, st["weight"], eps),
        # torch's own kernel in the input's dtype: what that precision delivers on this input
        in_dtype=lambda t, st: F.rms_norm(t, (d,), 1 + st["weight"], eps),
        suspects=lambda t, st: zc_suspects(t, st["weight"], eps),
    )


def _gated_case(
    harness: Harness,
    x: Input,
    gate: Input | None,
    weight: torch.Tensor | None,
    *,
    eps: float,
    dtype: torch.dtype | None,
    tol: Tolerance | None,
    cause: Misconception | None = None,
    call: str | None = None,
) -> None:
    """GatedRMSNorm built (with `weight` loaded, or fresh), called once on x (and the gate)."""
    d = x.tensor.shape[-1]
    inputs = [x.tensor] if gate is None else [x.tensor, gate.tensor]
    state = None if weight is None else {"weight": weight}
    program = harness.program(GATED, [d], {"eps": eps}, state=state, dtype=dtype, steps=[Step(inputs)])
    harness.begin(program)  # the worker runs the learner's code while the truth is computed here
    w = torch.ones(d) if weight is None else weight
    w = w.to(dtype) if dtype is not None else w
    g = None if gate is None else gate.tensor
    want = gated_reference(x.tensor, w, eps, g)
    got = harness.run(program, ERROR_SUSPECTS, sent=True).steps[0].output
    call = call or call_text(GATED, [d], {"eps": eps}) + ("" if gate is None else say(" with a gate", "（带门控）"))
    on = x.describe(harness.device) + ("" if gate is None else say("; gate: {g}", "；门控：{g}", g=gate.label))
    if dtype in HALF:
        harness.assert_dtype(got, dtype, call=call, on=on)

    @torch.no_grad()
    def error() -> float:
        def truth(moved: list[torch.Tensor]) -> list[torch.Tensor]:
            return [gated_reference(moved[0], w, eps, moved[1] if len(moved) > 1 else None)]

        own = []
        if x.tensor.dtype == torch.float32:
            torch_kernel = F.rms_norm(x.tensor, (d,), w, eps)
            own = [torch_kernel if g is None else torch_kernel * F.silu(g)]
        return own_errors(truth, inputs, [want], own)[0]

    harness.assert_close(
        got,
        want,
        tol=tol or tolerance_for(x.tensor.dtype),
        own_error=error,
        call=call,
        on=on,
        suspects=lambda: gated_suspects(x.tensor, w, eps, g),
        cause=cause,
    )


def check_gated(
    harness: Harness,
    x: Input,
    gate: Input | None,
    *,
    eps: float = 1e-6,
    weight_key: int = 200,
    dtype: torch.dtype | None = None,
    tol: Tolerance | None = None,
) -> None:
    _gated_case(harness, x, gate, gated_weight(x.tensor.shape[-1], weight_key), eps=eps, dtype=dtype, tol=tol)


def check(
    harness: Harness,
    cls: str,
    x: Input,
    *,
    key: int,
    eps: float = 1e-6,
    dtype: torch.dtype | None = None,
    tol: Tolerance | None = None,
) -> None:
    """One forward of `cls` on x (with a random gate for GatedRMSNorm) and random weights from `key`."""
    if cls == ZC:
        check_zc(harness, x, eps=eps, weight_key=key, dtype=dtype, tol=tol)
        return
    gate = random_gate(tuple(x.tensor.shape), key + 1)
    if dtype is not None:
        gate = Input(gate.tensor.to(dtype), gate.label)
    check_gated(harness, x, gate, eps=eps, weight_key=key, dtype=dtype, tol=tol)


CLASSES = pytest.mark.parametrize("cls", [ZC, GATED], ids=["zero_centred", "gated"])


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
def test_zero_centred_weight_and_state_dict(harness: Harness) -> None:
    info = harness.inspect(ZC, [6])
    weight = info.parameters.get("weight")
    if weight is not None and weight.shape == [6] and bool((weight.value == 1).all()):
        fail(
            say(
                "ZeroCentredRMSNorm(6).weight starts at ones, expected zeros (the gain is 1 + weight).",
                "ZeroCentredRMSNorm(6).weight 从全 1 开始，应为全 0（增益是 1 + weight）。",
            )
            + " "
            + harness.diagnose(INIT_ONES)
        )
    expect_parameters("ZeroCentredRMSNorm(6)", info, {"weight": torch.zeros(6)})
    expect_keys("ZeroCentredRMSNorm(6)", "state_dict", info.state_dict, ["weight"])


@pytest.mark.category(Category.STATE)
def test_gated_weight_and_state_dict(harness: Harness) -> None:
    info = harness.inspect(GATED, [6])
    weight = info.parameters.get("weight")
    if weight is not None and weight.shape == [6] and bool((weight.value == 0).all()):
        fail(
            say(
                "GatedRMSNorm(6).weight starts at zeros, expected ones (a plain gain, not 1 + weight).",
                "GatedRMSNorm(6).weight 从全 0 开始，应为全 1（普通的增益，不是 1 + weight）。",
            )
            + " "
            + harness.diagnose(GATED_ONE_PLUS)
        )
    expect_parameters("GatedRMSNorm(6)", info, {"weight": torch.ones(6)})
    expect_keys("GatedRMSNorm(6)", "state_dict", info.state_dict, ["weight"])


@pytest.mark.category(Category.STATE)
@CLASSES
@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_dtype_argument_and_to(harness: Harness, cls: str, dtype: str) -> None:
    made = harness.inspect(cls, [4], {"dtype": dtype})
    got = made.parameters["weight"].dtype if "weight" in made.parameters else "-"
    if got != dtype:
        fail(
            say(
                "{cls}(4, dtype={dtype}).weight is {got}, expected {dtype}",
                "{cls}(4, dtype={dtype}).weight 是 {got}，应为 {dtype}",
                cls=cls,
                dtype=dtype,
                got=got,
            )
        )
    moved = harness.inspect(cls, [4], dtype=getattr(torch, dtype))
    got = moved.parameters["weight"].dtype if "weight" in moved.parameters else "-"
    if got != dtype:
        fail(
            say(
                "{cls}(4).to({dtype}) left weight as {got}: is it an nn.Parameter?",
                "{cls}(4).to({dtype}) 之后 weight 仍是 {got}：它是 nn.Parameter 吗？",
                cls=cls,
                dtype=dtype,
                got=got,
            )
        )


# -- forward in fp32 ---------------------------------------------------------------------------

SHAPES = [(2, 5, 8), (3, 16), (4, 1, 7), (1, 1), (6, 5), (8,), (3, 64)]


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_zero_centred_forward(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    key = 1000 + sum(shape) * 7 + len(shape)
    check_zc(harness, Input(randn(shape, key, scale=2.0, shift=0.5), "2·N(0,1)+0.5"), weight_key=key + 1)


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("k", range(3))
def test_zero_centred_forward_drawn_shapes(harness: Harness, k: int) -> None:
    shape = (draw(10 + k, 1, 5), draw(20 + k, 1, 7), draw(30 + k, 1, 97))
    check_zc(harness, Input(randn(shape, 40 + k, scale=1.5), "1.5·N(0,1)"), weight_key=50 + k)


@pytest.mark.category(Category.FORWARD)
def test_zero_centred_fresh_module_output(harness: Harness) -> None:
    x = Input(randn((4, 12), 60, scale=2.0), "2·N(0,1)")
    harness.forward_case(
        ZC,
        [12],
        {},
        x,
        expected=lambda t, _: zc_reference(t, torch.zeros(12), 1e-6),
        suspects=lambda t, _: zc_suspects(t, torch.zeros(12), 1e-6),
    )


@pytest.mark.category(Category.FORWARD)
def test_zero_centred_called_several_times(harness: Harness) -> None:
    d = draw(61, 3, 33)
    weight = zc_weight(d, 62)
    inputs = [
        Input(randn((4, d), 63, scale=2.0), "2·N(0,1)"),
        Input(randn((4, d), 64, scale=3.0), "3·N(0,1)"),
        Input(randn((2, 3, d), 65, scale=0.1), "0.1·N(0,1)"),
    ]
    inputs.append(inputs[0])  # same shape, other values, other shape, the first again
    harness.repeated_calls_case(
        ZC,
        [d],
        {"eps": 1e-6},
        inputs,
        state={"weight": weight},
        expected=lambda x: zc_reference(x, weight, 1e-6),
        suspects=lambda x: zc_suspects(x, weight, 1e-6),
    )


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_gated_forward(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    key = 2000 + sum(shape) * 7 + len(shape)
    check_gated(
        harness,
        Input(randn(shape, key, scale=2.0, shift=0.5), "2·N(0,1)+0.5"),
        random_gate(shape, key + 1),
        weight_key=key + 2,
    )


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("k", range(3))
def test_gated_forward_drawn_shapes(harness: Harness, k: int) -> None:
    shape = (draw(70 + k, 1, 5), draw(80 + k, 1, 7), draw(90 + k, 1, 97))
    check_gated(
        harness, Input(randn(shape, 100 + k, scale=1.5), "1.5·N(0,1)"), random_gate(shape, 110 + k), weight_key=120 + k
    )


@pytest.mark.category(Category.FORWARD)
def test_gated_without_gate(harness: Harness) -> None:
    check_gated(harness, Input(randn((3, 5, 16), 130, scale=2.0), "2·N(0,1)"), None, weight_key=131)


@pytest.mark.category(Category.FORWARD)
def test_gated_uniform_gate(harness: Harness) -> None:
    x = randn((4, 24), 132, scale=2.0)
    gate = torch.tensor([3.0, -1.0, 0.5, 6.0])[:, None].expand(4, 24).contiguous()  # one value per row
    label = say(
        "one value per row, the same in every channel (3, -1, 0.5, 6)", "每行一个值，所有通道相同（3、-1、0.5、6）"
    )
    check_gated(harness, Input(x, "2·N(0,1)"), Input(gate, label), weight_key=133)


@pytest.mark.category(Category.FORWARD)
def test_gated_fresh_module_output(harness: Harness) -> None:
    x = Input(randn((4, 12), 134, scale=2.0), "2·N(0,1)")
    _gated_case(harness, x, random_gate((4, 12), 135), None, eps=1e-6, dtype=None, tol=None)


@pytest.mark.category(Category.FORWARD)
def test_gated_called_several_times(harness: Harness) -> None:
    d = draw(136, 3, 33)
    weight = gated_weight(d, 137)
    pairs = [
        (Input(randn((4, d), 138, scale=2.0), "2·N(0,1)"), random_gate((4, d), 139)),
        (Input(randn((4, d), 140, scale=3.0), "3·N(0,1)"), random_gate((4, d), 141)),
        (Input(randn((2, 3, d), 142, scale=0.1), "0.1·N(0,1)"), random_gate((2, 3, d), 143)),
    ]
    pairs.append(pairs[0])  # same shape, other values, other shape, the first again
    for x, gate in pairs[:3]:  # each right on a fresh module first: a wrong computation is not called stateful
        _gated_case(harness, x, gate, weight, eps=1e-6, dtype=None, tol=None)
    steps = [Step([x.tensor, gate.tensor]) for x, gate in pairs]
    replies = harness.run(harness.program(GATED, [d], {"eps": 1e-6}, state={"weight": weight}, steps=steps)).steps
    for number, ((x, gate), reply) in enumerate(zip(pairs, replies, strict=True), start=1):
        call = say(
            "{call} (call {n} of {total} on the same module)",
            "{call}（同一模块的第 {n}/{total} 次调用）",
            call=call_text(GATED, [d], {"eps": 1e-6}),
            n=number,
            total=len(pairs),
        )
        want = gated_reference(x.tensor, weight, 1e-6, gate.tensor)
        harness.assert_close(
            reply.output,
            want,
            tol=tolerance_for(x.tensor.dtype),
            call=call,
            on=x.describe(harness.device),
            cause=STATEFUL if number > 1 else None,
        )


# -- shapes ------------------------------------------------------------------------------------


@pytest.mark.category(Category.SHAPES)
@CLASSES
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)], ids=lambda s: "x".join(map(str, s)))
def test_normalizes_the_last_dimension(harness: Harness, cls: str, shape: tuple[int, ...]) -> None:
    check(harness, cls, Input(randn(shape, 150 + shape[0], scale=3.0), "3·N(0,1)"), key=155 + shape[0])


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize("d", [1, 2, 3, 5])
def test_small_hidden_sizes(harness: Harness, d: int) -> None:
    check(harness, ZC, Input(randn((3, d), 160 + d), "N(0,1)"), key=165 + d)
    check(harness, GATED, Input(randn((3, d), 170 + d), "N(0,1)"), key=175 + d)


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category(Category.STABILITY)
@CLASSES
@pytest.mark.parametrize("device", DEVICES)
def test_small_variance_rows(harness: Harness, cls: str, device: str) -> None:
    check(
        harness,
        cls,
        Input(randn((4, 32), 180, scale=1e-3), say("small-variance (1e-3·N(0,1))", "小方差（1e-3·N(0,1)）")),
        key=181,
    )


@pytest.mark.category(Category.STABILITY)
@CLASSES
def test_all_zero_rows_stay_finite(harness: Harness, cls: str) -> None:
    x = randn((4, 16), 182)
    x[1] = 0.0
    x[3] = 0.0
    check(harness, cls, Input(x, say("rows-1-and-3-all-zero", "第 1、3 行全为零的")), key=183)


@pytest.mark.category(Category.STABILITY)
@CLASSES
@pytest.mark.parametrize("eps", [1e-2, 1e-6])
def test_custom_eps(harness: Harness, cls: str, eps: float) -> None:
    check(harness, cls, Input(randn((4, 12), 184, scale=0.05), "0.05·N(0,1)"), key=185, eps=eps)


@pytest.mark.category(Category.STABILITY)
@CLASSES
def test_large_values(harness: Harness, cls: str) -> None:
    check(
        harness, cls, Input(randn((3, 24), 186, scale=1e3), say("large (1e3·N(0,1))", "大数值（1e3·N(0,1)）")), key=187
    )


# -- low precision -----------------------------------------------------------------------------


@pytest.mark.category(Category.LOW_PRECISION)
@CLASSES
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("k", [0, 1])
def test_half_precision(harness: Harness, cls: str, dtype: torch.dtype, k: int, device: str) -> None:
    x = randn((4, 6, 64), 190 + k).to(dtype)
    check(harness, cls, Input(x, "N(0,1)"), key=192 + 3 * k, dtype=dtype)


@pytest.mark.category(Category.LOW_PRECISION)
@CLASSES
@pytest.mark.parametrize("device", DEVICES)
def test_fp16_activations_near_300(harness: Harness, cls: str, device: str) -> None:
    x = (300 * (1 + 0.1 * randn((3, 64), 200))).to(torch.float16)
    label = say("near-300 (300² overflows fp16)", "接近 300（300² 在 fp16 中溢出）")
    check(harness, cls, Input(x, label), key=201, dtype=torch.float16)


@pytest.mark.category(Category.LOW_PRECISION)
@CLASSES
def test_float32_weight_keeps_input_dtype(harness: Harness, cls: str) -> None:
    """A float32 module on bf16 input returns bf16 (type_as(x)), values as the reference on that input."""
    d = 32
    x = Input(randn((3, d), 202, scale=2.0).to(torch.bfloat16), "2·N(0,1)")
    gate = random_gate((3, d), 203)
    gate = Input(gate.tensor.to(torch.bfloat16), gate.label)
    weight = zc_weight(d, 204) if cls == ZC else gated_weight(d, 204)  # float32, as the module is
    inputs = [x.tensor] if cls == ZC else [x.tensor, gate.tensor]
    got = (
        harness.run(harness.program(cls, [d], {}, state={"weight": weight}, steps=[Step(inputs)]), ERROR_SUSPECTS)
        .steps[0]
        .output
    )
    call = say(
        "{cls}({d}) with float32 weight, called on bf16 input", "float32 权重的 {cls}({d})，输入为 bf16", cls=cls, d=d
    )
    on = x.describe(harness.device)
    if got.dtype != torch.bfloat16:
        fail(
            say(
                "{call} on {on}: output dtype is {got}, expected bfloat16 (the input's dtype, whatever the weight's).",
                "{call}，{on}：输出的数据类型是 {got}，应为 bfloat16（输入的数据类型，与 weight 的类型无关）。",
                call=call,
                on=on,
                got=dtype_name(got.dtype),
            )
            + " "
            + harness.diagnose(OUTPUT_PROMOTED),
            call=call_on(call, on),
        )
    want = zc_reference(x.tensor, weight, 1e-6) if cls == ZC else gated_reference(x.tensor, weight, 1e-6, gate.tensor)
    harness.assert_close(got, want, tol=tolerance_for(torch.bfloat16), call=call, on=on)


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(2, 5, 8), (7, 3)], ids=lambda s: "x".join(map(str, s)))
def test_zero_centred_gradients(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    from normkata_reference_qwen3_next_norms import ZeroCentredRMSNorm  # type: ignore[import-not-found]

    d = shape[-1]
    harness.gradient_case(
        ZC,
        [d],
        {},
        Input(randn(shape, 210 + d), "N(0,1)"),
        reference=ZeroCentredRMSNorm(d),
        state={"weight": zc_weight(d, 211 + d)},
        suspects=lambda x, state: zc_suspects(x, state["weight"], 1e-6),
    )


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(2, 5, 8), (7, 3)], ids=lambda s: "x".join(map(str, s)))
def test_gated_gradients(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    from normkata_reference_qwen3_next_norms import GatedRMSNorm  # type: ignore[import-not-found]

    d = shape[-1]
    x, gate = Input(randn(shape, 220 + d), "N(0,1)"), random_gate(shape, 221 + d)
    weight, grad_output = gated_weight(d, 222 + d), randn(shape, 223 + d)
    step = Step([x.tensor, gate.tensor], input_grad=True, grad_output=grad_output)
    got = harness.run(harness.program(GATED, [d], state={"weight": weight}, steps=[step])).steps[0]
    module = GatedRMSNorm(d, dtype=torch.float64)
    module.weight.data.copy_(weight.double())
    x64, g64 = x.tensor.double().requires_grad_(True), gate.tensor.double().requires_grad_(True)
    module(x64, g64).backward(grad_output.double())
    call = call_text(GATED, [d], {}, method="backward")
    on = x.describe(harness.device) + say("; gate: {g}", "；门控：{g}", g=gate.label)
    tol = TOLERANCES["gradient"]
    expected: dict[str, torch.Tensor | None] = {
        say("gradient of x", "x 的梯度"): x64.grad,
        say("gradient of the gate", "门控的梯度"): g64.grad,
    }
    grads = [*got.input_grads, None, None]  # None: the learner's forward left that input out of the graph
    for index, (what, want) in enumerate(expected.items()):
        if grads[index] is None:
            fail(
                say(
                    "{call} on {on}: no {what} (is the graph cut by .detach(), .data or no_grad?)",
                    "{call}，{on}：没有得到{what}（计算图是否被 .detach()、.data 或 no_grad 切断了？）",
                    call=call,
                    on=on,
                    what=what,
                ),
                call=call_on(call, on),
            )
        assert want is not None
        harness.assert_close(grads[index], want, tol=tol, call=call, on=on, what=what)  # type: ignore[arg-type]
    weight_grad = got.param_grads.get("weight")
    if weight_grad is None:
        fail(
            say("{call} on {on}: `weight` got no gradient", "{call}，{on}：`weight` 没有得到梯度", call=call, on=on),
            call=call_on(call, on),
        )
    assert module.weight.grad is not None
    harness.assert_close(
        weight_grad, module.weight.grad, tol=tol, call=call, on=on, what=say("gradient of weight", "weight 的梯度")
    )
