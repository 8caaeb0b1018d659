"""Hidden suite for the GroupNorm kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. Inputs
are drawn from the run's seed; the integer passed to `randn` / `draw` only tells inputs apart.
Channel counts always differ from the last dimension's size, so a per-channel weight that
broadcasts along the wrong axis cannot pass by accident.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from normkata.grading.checks import (
    DEVICES,
    Harness,
    Input,
    LearnerError,
    Misconception,
    broadcast_sizes,
    build_failure,
    call_text,
    draw,
    expect_keys,
    expect_parameters,
    explain,
    fail,
    load_fix,
    misconceptions,
    randn,
    say,
)
from normkata.grading.contract import TOLERANCES, Category, Tolerance
from normkata.grading.messages import Failure, Step

MISTAKES = misconceptions("groupnorm")  # titles and hints: kata.yaml
UNBIASED = MISTAKES["gn-unbiased-variance"]
EPS_OUTSIDE = MISTAKES["gn-eps-outside-sqrt"]
STRIDED_GROUPS = MISTAKES["gn-strided-groups"]
PER_CHANNEL = MISTAKES["gn-per-channel-statistics"]
BATCH_AXIS = MISTAKES["gn-batch-axis"]
NO_UPCAST = MISTAKES["gn-no-fp32-upcast"]
AFFINE_LAST_AXIS = MISTAKES["gn-affine-last-axis"]


def affine_last_axis(x: torch.Tensor) -> tuple[Misconception, Any]:
    """A weight of shape (C,) met the last dimension of x: a broadcast error naming those sizes."""
    sizes = {(x.shape[-1], x.shape[1]), (x.shape[1], x.shape[-1])}

    def matches(failure: Failure) -> bool:
        return broadcast_sizes(failure) in sizes

    return AFFINE_LAST_AXIS, matches


def reference_output(x: torch.Tensor, state: dict[str, torch.Tensor] | None, groups: int, eps: float) -> torch.Tensor:
    """The reference module in float64 on the (already quantised) input."""
    from normkata_reference_groupnorm import GroupNorm  # type: ignore[import-not-found]

    module = GroupNorm(groups, x.shape[1], eps=eps, affine=bool(state), dtype=torch.float64)
    if state:
        module.load_state_dict({k: v.double() for k, v in state.items()})
    with torch.no_grad():
        return module(x.double().cpu())


def _normalize(
    g: torch.Tensor, dims: tuple[int, ...], eps: float, *, unbiased: bool = False, outside: bool = False
) -> torch.Tensor:
    mean = g.mean(dims, keepdim=True)
    var = g.var(dims, unbiased=unbiased, keepdim=True)
    return (g - mean) / (var.sqrt() + eps if outside else torch.sqrt(var + eps))


def suspects(
    x: torch.Tensor, state: dict[str, torch.Tensor] | None, groups: int, eps: float
) -> list[tuple[Misconception, torch.Tensor]]:
    x64 = x.double().cpu()
    n, c = x.shape[:2]
    per_channel = (1, c) + (1,) * (x.dim() - 2)
    weight = state["weight"].double().view(per_channel) if state else torch.ones(per_channel, dtype=torch.float64)
    bias = state["bias"].double().view(per_channel) if state else torch.zeros(per_channel, dtype=torch.float64)
    g = x64.reshape(n, groups, -1)

    def affine(y: torch.Tensor) -> torch.Tensor:
        return y.reshape(x.shape) * weight + bias

    found = [
        (UNBIASED, affine(_normalize(g, (-1,), eps, unbiased=True))),
        (EPS_OUTSIDE, affine(_normalize(g, (-1,), eps, outside=True))),
    ]
    if 1 < groups < c:
        strided = x64.reshape(n, c // groups, groups, -1).transpose(1, 2)  # group j: channels j, j + G, ...
        found.append((STRIDED_GROUPS, affine(_normalize(strided, (2, 3), eps).transpose(1, 2))))
    if groups < c and x.dim() > 2:
        found.append((PER_CHANNEL, affine(_normalize(x64.reshape(n, c, -1), (-1,), eps))))
    if n > 1:
        found.append((BATCH_AXIS, affine(_normalize(g, (0, 2), eps))))
    if x.dtype in (torch.float16, torch.bfloat16):
        gh = x.cpu().reshape(n, groups, -1)
        mean = gh.mean(-1, keepdim=True)
        var = (gh - mean).pow(2).mean(-1, keepdim=True)
        naive = ((gh - mean) / torch.sqrt(var + eps)).reshape(x.shape)
        found.append((NO_UPCAST, (naive * weight.to(x.dtype) + bias.to(x.dtype)).double()))
    return found


def random_affine(channels: int, key: int) -> dict[str, torch.Tensor]:
    return {"weight": randn([channels], key, scale=0.5, shift=1.0), "bias": randn([channels], key + 1, scale=0.5)}


def check_forward(
    harness: Harness,
    x: Input,
    groups: int,
    *,
    eps: float = 1e-5,
    affine: bool = True,
    dtype: torch.dtype | None = None,
    key: int = 100,
    tol: Tolerance | None = None,
) -> None:
    channels = x.tensor.shape[1]
    kwargs: dict[str, Any] = {"eps": eps} if affine else {"eps": eps, "affine": False}
    harness.forward_case(
        "GroupNorm",
        [groups, channels],
        kwargs,
        x,
        state=random_affine(channels, key) if affine else None,
        dtype=dtype,
        tol=tol,
        expected=lambda x, state: reference_output(x, state, groups, eps),
        # torch's own kernel in the input's dtype: what that precision delivers on this input
        in_dtype=lambda x, state: torch.nn.functional.group_norm(
            x, groups, state.get("weight"), state.get("bias"), eps
        ),
        suspects=lambda x, state: suspects(x, state, groups, eps),
        error_suspects=[affine_last_axis(x.tensor)],
    )


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
def test_parameters_and_state_dict(harness: Harness) -> None:
    info = harness.inspect("GroupNorm", [2, 6])
    expect_parameters("GroupNorm(2, 6)", info, {"weight": torch.ones(6), "bias": torch.zeros(6)})
    expect_keys("GroupNorm(2, 6)", "state_dict", info.state_dict, ["weight", "bias"])


@pytest.mark.category(Category.STATE)
def test_without_affine(harness: Harness) -> None:
    call = "GroupNorm(2, 6, affine=False)"
    info = harness.inspect("GroupNorm", [2, 6], {"affine": False})
    expect_parameters(call, info, {})
    expect_keys(call, "state_dict", info.state_dict, [])
    # The instructions say `weight` and `bias` are None (as nn.GroupNorm's): read them.
    for name in ("weight", "bias"):
        try:
            reply = harness.run(
                harness.program("GroupNorm", [2, 6], {"affine": False}, steps=[Step([], attribute=name)])
            ).steps[0]
            got = (
                say("a tensor of shape {shape}", "形状为 {shape} 的张量", shape=tuple(reply.outputs[0].shape))
                if reply.outputs
                else None
            )
        except LearnerError as exc:
            got = str(exc)
        if got is not None:
            fail(
                say(
                    "{call}.{name} should be None (as nn.GroupNorm's is without affine); instead: {got}. "
                    'Fix: self.register_parameter("{name}", None).',
                    "{call}.{name} 应为 None（与不带仿射参数的 nn.GroupNorm 相同）；实际上：{got}。"
                    '修改：self.register_parameter("{name}", None)。',
                    call=call,
                    name=name,
                    got=got,
                ),
                call=call,
            )


@pytest.mark.category(Category.STATE)
@pytest.mark.parametrize(("groups", "channels"), [(4, 6), (3, 8)], ids=["4-groups-6-channels", "3-groups-8-channels"])
def test_channels_not_divisible_by_groups(harness: Harness, groups: int, channels: int) -> None:
    call = call_text("GroupNorm", [groups, channels], None, None)
    failure = build_failure(harness, "GroupNorm", [groups, channels])
    if failure is None:
        fail(
            say(
                "{call} was built, but {c} channels cannot be split into {g} equal groups: raise ValueError in "
                "__init__, as nn.GroupNorm does.",
                "{call} 被成功构建了，但 {c} 个通道无法平分成 {g} 组：应像 nn.GroupNorm 一样在 __init__ 中抛出 "
                "ValueError。",
                call=call,
                c=channels,
                g=groups,
            ),
            call=call,
        )
    if failure.builtin != "ValueError" or failure.stage != "build":
        fail(
            say(
                "{call} should raise ValueError in __init__; instead: {what}",
                "{call} 应在 __init__ 中抛出 ValueError；实际上：{what}",
                call=call,
                what=explain(failure, call),
            ),
            call=call,
        )


@pytest.mark.category(Category.STATE)
def test_loads_torch_groupnorm_state_dict(harness: Harness) -> None:
    torch_module = torch.nn.GroupNorm(3, 6)
    torch_module.load_state_dict(random_affine(6, 5))
    x = randn((2, 6, 5), 6, scale=2.0)
    reply = harness.run(
        harness.program("GroupNorm", [3, 6], state=dict(torch_module.state_dict()), steps=[Step([x])], inspect=True)
    )
    if not reply.state_load.clean:
        fix = load_fix(
            reply.state_load,
            say(
                "Fix: name the parameters `weight` and `bias`, one value per channel (shape (num_channels,)).",
                "修改：参数命名为 `weight` 和 `bias`，每个通道一个值（形状为 (num_channels,)）。",
            ),
        )
        fail(
            say(
                "GroupNorm(3, 6).load_state_dict(nn.GroupNorm(3, 6).state_dict()) would fail: missing {missing}, "
                "unexpected {unexpected}, other shapes {mismatched}. {fix}",
                "GroupNorm(3, 6).load_state_dict(nn.GroupNorm(3, 6).state_dict()) 会失败：缺少 {missing}，"
                "多出 {unexpected}，形状不同的有 {mismatched}。{fix}",
                missing=reply.state_load.missing or "-",
                unexpected=reply.state_load.unexpected or "-",
                mismatched=reply.state_load.mismatched or "-",
                fix=fix,
            ),
            call="GroupNorm(3, 6).load_state_dict(nn.GroupNorm(3, 6).state_dict())",
        )
    expected = torch.nn.functional.group_norm(x.double(), 3, torch_module.weight.double(), torch_module.bias.double())
    harness.assert_close(
        reply.steps[0].output,
        expected,
        tol=TOLERANCES["float32"],
        call=say(
            "load_state_dict(nn.GroupNorm(3, 6).state_dict()) then forward",
            "load_state_dict(nn.GroupNorm(3, 6).state_dict()) 后 forward",
        ),
        on=Input(x, "2·N(0,1)").describe(),
    )


@pytest.mark.category(Category.STATE)
@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_dtype_argument_and_to(harness: Harness, dtype: str) -> None:
    as_dtype = getattr(torch, dtype)
    expected = {"weight": torch.ones(4, dtype=as_dtype), "bias": torch.zeros(4, dtype=as_dtype)}
    made = harness.inspect("GroupNorm", [2, 4], {"dtype": dtype})
    expect_parameters(f"GroupNorm(2, 4, dtype={dtype})", made, expected)
    expect_parameters(f"GroupNorm(2, 4).to({dtype})", harness.inspect("GroupNorm", [2, 4], dtype=as_dtype), expected)


# -- forward in fp32 ---------------------------------------------------------------------------

#: (shape, groups): 1, 2 and 3 spatial dims, none at all, and many groups.
SHAPES = [((2, 6, 5), 3), ((3, 8, 4, 5), 4), ((2, 4, 3, 2, 5), 2), ((4, 6), 3), ((1, 12, 7), 6)]


def _shape_id(case: tuple[tuple[int, ...], int]) -> str:
    return "x".join(map(str, case[0])) + f"-G{case[1]}"


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", SHAPES, ids=_shape_id)
def test_forward(harness: Harness, case: tuple[tuple[int, ...], int], device: str) -> None:
    shape, groups = case
    key = 1000 + sum(shape) * 7 + len(shape)
    check_forward(harness, Input(randn(shape, key, scale=2.0, shift=0.5), "2·N(0,1)+0.5"), groups, key=key + 1)


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("k", range(2))
def test_forward_drawn_shapes(harness: Harness, k: int) -> None:
    groups, per_group = draw(10 + k, 2, 4), draw(20 + k, 1, 4)
    channels, length = groups * per_group, draw(30 + k, 2, 11)
    length += length == channels  # never as long as the channel count
    shape = (draw(40 + k, 2, 4), channels, length)
    check_forward(harness, Input(randn(shape, 50 + k, scale=1.5, shift=-0.5), "1.5·N(0,1)-0.5"), groups, key=60 + k)


@pytest.mark.category(Category.FORWARD)
def test_forward_without_affine(harness: Harness) -> None:
    check_forward(harness, Input(randn((3, 6, 4), 3, scale=3.0, shift=-1.0), "3·N(0,1)-1"), 2, affine=False)


@pytest.mark.category(Category.FORWARD)
def test_called_several_times(harness: Harness) -> None:
    state = random_affine(8, 61)
    inputs = [
        Input(randn((2, 8, 5), 62, scale=2.0, shift=1.0), "2·N(0,1)+1"),
        Input(randn((2, 8, 5), 64, scale=3.0), "3·N(0,1)"),
        Input(randn((3, 8, 2, 3), 63, scale=0.1), "0.1·N(0,1)"),
    ]
    inputs.append(inputs[0])  # same shape, other values, other shape, the first again
    harness.repeated_calls_case(
        "GroupNorm",
        [4, 8],
        {"eps": 1e-5},
        inputs,
        state=state,
        expected=lambda x: reference_output(x, state, 4, 1e-5),
        suspects=lambda x: suspects(x, state, 4, 1e-5),
    )


@pytest.mark.category(Category.SHAPES)
def test_one_group_per_channel(harness: Harness) -> None:
    check_forward(harness, Input(randn((3, 5, 7), 70, scale=2.0, shift=1.0), "2·N(0,1)+1"), 5, key=71)


@pytest.mark.category(Category.SHAPES)
def test_one_group(harness: Harness) -> None:
    check_forward(harness, Input(randn((3, 6, 4, 5), 72, scale=2.0, shift=1.0), "2·N(0,1)+1"), 1, key=73)


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("device", DEVICES)
def test_large_offset(harness: Harness, device: str) -> None:
    x = Input(randn((2, 6, 32), 11, shift=1e3), say("mean-1000 (N(0,1)+1e3)", "均值 1000（N(0,1)+1e3）"))
    check_forward(harness, x, 3, tol=TOLERANCES["large offset"])


@pytest.mark.category(Category.STABILITY)
def test_constant_groups(harness: Harness) -> None:
    x = randn((2, 6, 5), 12)
    x[0, 0:2] = 7.0  # sample 0, group 0
    x[1, 4:6] = -0.5  # sample 1, group 2
    check_forward(harness, Input(x, say("with-two-constant-groups", "含两个常数组的")), 3)


@pytest.mark.category(Category.STABILITY)
def test_small_variance(harness: Harness) -> None:
    check_forward(
        harness,
        Input(randn((3, 8, 6), 13, scale=1e-3), say("small-variance (1e-3·N(0,1))", "小方差（1e-3·N(0,1)）")),
        4,
    )


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("eps", [1e-1, 1e-7])
def test_custom_eps(harness: Harness, eps: float) -> None:
    check_forward(harness, Input(randn((3, 6, 5), 14, scale=0.05), "0.05·N(0,1)"), 2, eps=eps)


# -- low precision -----------------------------------------------------------------------------


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
def test_half_precision(harness: Harness, dtype: torch.dtype, device: str) -> None:
    x = randn((4, 8, 3, 5), 20, scale=2.0, shift=1.0).to(dtype)
    check_forward(harness, Input(x, "2·N(0,1)+1"), 4, dtype=dtype, key=30)


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
def test_fp16_large_activations(harness: Harness, device: str) -> None:
    x = randn((2, 6, 40), 35, scale=300.0).to(torch.float16)
    label = say(
        "std-300 (300·N(0,1): squared deviations overflow fp16)", "标准差 300（300·N(0,1)：偏差的平方在 fp16 中溢出）"
    )
    check_forward(harness, Input(x, label), 3, dtype=torch.float16, key=36)


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("shape", "groups"), [((2, 6, 5), 3), ((3, 4, 2, 3), 2)], ids=["2x6x5-G3", "3x4x2x3-G2"])
def test_gradients(harness: Harness, shape: tuple[int, ...], groups: int, device: str) -> None:
    from normkata_reference_groupnorm import GroupNorm  # type: ignore[import-not-found]

    harness.gradient_case(
        "GroupNorm",
        [groups, shape[1]],
        {},
        Input(randn(shape, 40, scale=1.5), "1.5·N(0,1)"),
        reference=GroupNorm(groups, shape[1]),
        state=random_affine(shape[1], 41),
        suspects=lambda x, state: suspects(x, state, groups, 1e-5),
    )
