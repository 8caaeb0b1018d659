"""Hidden suite for the BatchNorm1d kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. Inputs
are drawn from the run's seed; the integer passed to `randn` / `draw` only tells inputs apart.
Structure (names, kinds and dtypes of parameters and buffers, the state_dict) is judged by one
case; numeric cases load what fits and never fail merely because a buffer is missing.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from normkata.grading.checks import (
    DEVICES,
    Harness,
    Input,
    Misconception,
    call_text,
    draw,
    exception_name,
    expect_parameters,
    fail,
    misconceptions,
    randn,
    say,
)
from normkata.grading.contract import TOLERANCES, Category
from normkata.grading.messages import Inspection, Step, TensorInfo, requires_grad_from

C = 3  # channels; never equal to a length L used below, so a broadcast on the wrong axis cannot pass
BUFFERS = ("running_mean", "running_var", "num_batches_tracked")
STATE_KEYS = ("weight", "bias", *BUFFERS)
FP32 = TOLERANCES["float32"]


MISTAKES = misconceptions("batchnorm")  # titles and hints: kata.yaml
BIASED_RUNNING_VAR = MISTAKES["bn-biased-running-var"]
KERAS_MOMENTUM = MISTAKES["bn-keras-momentum"]
N_ONLY = MISTAKES["bn-stats-over-n-only"]
EVAL_BATCH_STATS = MISTAKES["bn-eval-uses-batch-stats"]
UNBIASED_OUTPUT = MISTAKES["bn-unbiased-output"]
STATS_IN_GRAPH = MISTAKES["bn-running-stats-in-graph"]
EPS_IGNORED = MISTAKES["bn-eps-ignored"]


# -- inputs and the reference ------------------------------------------------------------------


def batches(shape: tuple[int, ...], count: int, key: int) -> list[torch.Tensor]:
    """Inputs with a nonzero mean and non-unit variance: a zero-mean, unit-variance input hides mistakes."""
    return [randn(shape, key + i, scale=2.0, shift=3.0) for i in range(count)]


def affine(key: int) -> dict[str, torch.Tensor]:
    """Random weight and bias: with ones and zeros, a missing or swapped affine step can hide."""
    return {"weight": randn([C], key, scale=0.5, shift=1.0), "bias": randn([C], key + 1, scale=0.5)}


def full_state(key: int) -> dict[str, torch.Tensor]:
    """A fresh module's complete state_dict with random weight and bias."""
    return {
        **affine(key),
        "running_mean": torch.zeros(C),
        "running_var": torch.ones(C),
        "num_batches_tracked": torch.tensor(0),
    }


def trained_torch(key: int) -> torch.nn.BatchNorm1d:
    """torch's own module with random affine parameters, trained for three steps, in eval mode."""
    module = torch.nn.BatchNorm1d(C)
    module.load_state_dict(full_state(key))
    for x in batches((16, C), 3, key + 10):
        module(x)
    return module.eval()


def reference(kwargs: dict[str, Any], state: dict[str, torch.Tensor] | None = None) -> torch.nn.Module:
    """The reference module in float64, with `state` (all of it or some entries) loaded."""
    from normkata_reference_batchnorm import BatchNorm1d  # type: ignore[import-not-found]

    module = BatchNorm1d(C, **kwargs).double()
    if state:
        own = module.state_dict()
        own.update({k: v.double() if v.is_floating_point() else v for k, v in state.items()})
        module.load_state_dict(own)
    return module


def _dims(x: torch.Tensor) -> tuple[int, ...]:
    return (0,) if x.dim() == 2 else (0, 2)


def _view(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return v.view(1, -1) if x.dim() == 2 else v.view(1, -1, 1)


def simulate(
    xs: list[torch.Tensor],
    *,
    momentum: float | None = 0.1,
    unbiased: bool = True,
    keras: bool = False,
    n_only: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Running stats after training on xs, computed with (or without) one mistake."""
    mean_run, var_run = torch.zeros(C, dtype=torch.float64), torch.ones(C, dtype=torch.float64)
    for step, x in enumerate(xs, start=1):
        x64 = x.double()
        dims = (0,) if n_only or x.dim() == 2 else (0, 2)
        mean, var = x64.mean(dims), x64.var(dims, unbiased=unbiased)
        if n_only and x.dim() == 3:
            mean, var = mean.mean(-1), var.mean(-1)
        factor = 1.0 / step if momentum is None else momentum
        if keras:
            factor = 1 - factor
        mean_run = (1 - factor) * mean_run + factor * mean
        var_run = (1 - factor) * var_run + factor * var
    return mean_run, var_run


def output_suspects(
    x: torch.Tensor, state: dict[str, torch.Tensor], eps: float = 1e-5
) -> list[tuple[Misconception, torch.Tensor]]:
    """A training forward's output with one mistake each."""
    x64 = x.double().cpu()
    dims = _dims(x)
    one, zero = torch.ones(C, dtype=torch.float64), torch.zeros(C, dtype=torch.float64)
    w = _view(x, state["weight"].double() if "weight" in state else one)
    b = _view(x, state["bias"].double() if "bias" in state else zero)
    mean, var = _view(x, x64.mean(dims)), _view(x, x64.var(dims, unbiased=False))
    found = [(UNBIASED_OUTPUT, (x64 - mean) / torch.sqrt(_view(x, x64.var(dims, unbiased=True)) + eps) * w + b)]
    if eps != 1e-5:
        found.append((EPS_IGNORED, (x64 - mean) / torch.sqrt(var + 1e-5) * w + b))
    if x.dim() == 3:
        n_mean, n_var = x64.mean(0, keepdim=True), x64.var(0, unbiased=False, keepdim=True)
        found.append((N_ONLY, (x64 - n_mean) / torch.sqrt(n_var + eps) * w + b))
    return found


def check_train_forward(
    harness: Harness, x: Input, *, key: int, kwargs: dict[str, Any] | None = None, dtype: torch.dtype | None = None
) -> None:
    kwargs = kwargs or {}
    state = affine(key) if kwargs.get("affine", True) else None
    eps = kwargs.get("eps", 1e-5)

    def expected(x_in: torch.Tensor, st: dict[str, torch.Tensor]) -> torch.Tensor:
        with torch.no_grad():
            return reference(kwargs, st).train()(x_in.double().cpu())

    def in_dtype(x_in: torch.Tensor, st: dict[str, torch.Tensor]) -> torch.Tensor:
        """torch's own kernel in the input's dtype: what that precision delivers on this input."""
        return torch.nn.functional.batch_norm(
            x_in, None, None, st.get("weight"), st.get("bias"), training=True, eps=eps
        )

    harness.forward_case(
        "BatchNorm1d",
        [C],
        kwargs,
        x,
        state=state,
        dtype=dtype,
        expected=expected,
        suspects=lambda x_in, st: output_suspects(x_in, st, eps),
        in_dtype=in_dtype,
    )


def fix_line(problems: list[str]) -> str:
    """One line that says how to get torch's structure, given the names that have a problem."""
    if set(problems) == {"num_batches_tracked"}:
        return say(
            'Fix: self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long)) and add 1 on every '
            "training forward (momentum=None divides by it).",
            '修改：self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))，每次训练前向加 1'
            "（momentum=None 要除以它）。",
        )
    return say(
        "Fix: nn.Parameter `weight` (ones) and `bias` (zeros) of shape (C,); self.register_buffer for `running_mean` "
        "(zeros, (C,)), `running_var` (ones, (C,)) and `num_batches_tracked` (0-dim int64); nothing else persistent.",
        "修改：形状为 (C,) 的 nn.Parameter `weight`（全 1）和 `bias`（全 0）；用 self.register_buffer 注册 "
        "`running_mean`（全 0，(C,)）、`running_var`（全 1，(C,)）和 `num_batches_tracked`（0 维 int64）；"
        "不要有其他会进入 state_dict 的内容。",
    )


def _names(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names) or "-"


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
def test_state_dict_matches_torch(harness: Harness) -> None:
    """The one case that judges structure: names, kinds, shapes, dtypes and start values."""
    call = f"BatchNorm1d({C})"
    torch_module = trained_torch(5)
    torch_state = dict(torch_module.state_dict())
    reply = harness.run(harness.program("BatchNorm1d", [C], state=torch_state, mode="eval", inspect=True))
    assert reply.inspect is not None
    info, load = reply.inspect, reply.state_load
    wrong_kind = [n for n in BUFFERS if n in info.parameters]  # right name, but an nn.Parameter
    wrong_kind += [n for n in ("weight", "bias") if n in info.state_dict and n not in info.parameters]
    wrong_dtype = {k: v for k, v in _wrong_dtypes(info).items() if k not in load.mismatched}
    if not load.clean or wrong_kind or wrong_dtype:
        parts = []
        if load.unexpected:
            parts.append(say("your module has no {names}", "你的模块没有 {names}", names=_names(load.unexpected)))
        if load.missing:
            parts.append(say("torch's module has no {names}", "torch 的模块没有 {names}", names=_names(load.missing)))
        if load.mismatched:
            parts.append(say("shapes differ for {names}", "{names} 的形状不同", names=_names(load.mismatched)))
        if wrong_kind:
            parts.append(
                say(
                    "{names} registered as the wrong kind (weight and bias are Parameters, the running "
                    "statistics buffers)",
                    "{names} 注册的类别不对（weight 和 bias 是 Parameter，运行统计量是 buffer）",
                    names=_names(wrong_kind),
                )
            )
        parts += wrong_dtype.values()
        problems = [*load.unexpected, *load.missing, *load.mismatched, *wrong_kind, *wrong_dtype]
        fail(
            say(
                "{call} does not have torch's structure (nn.BatchNorm1d({c}).state_dict() must load into it, and its "
                "state_dict into nn.BatchNorm1d({c})): {parts}. {fix}",
                "{call} 的结构与 torch 的不一致（nn.BatchNorm1d({c}).state_dict() 要能加载进来，它的 state_dict "
                "也要能加载进 nn.BatchNorm1d({c})）：{parts}。{fix}",
                call=call,
                c=C,
                parts=say("; ", "；").join(parts),
                fix=fix_line(problems),
            ),
            call=call,
        )
    # The other way: the learner's state_dict loads into torch's module (strict).
    learner_state = {k: (info.parameters.get(k) or info.buffers[k]).value for k in info.state_dict}  # type: ignore[union-attr]
    try:
        torch.nn.BatchNorm1d(C).load_state_dict(learner_state, strict=True)
    except RuntimeError as exc:
        fail(
            say(
                "nn.BatchNorm1d({c}).load_state_dict({call}.state_dict()) raised: {error}",
                "nn.BatchNorm1d({c}).load_state_dict({call}.state_dict()) 抛出：{error}",
                c=C,
                call=call,
                error=" ".join(str(exc).split())[:300],
            )
        )
    fresh = harness.inspect("BatchNorm1d", [C])
    expect_parameters(call, fresh, {"weight": torch.ones(C), "bias": torch.zeros(C)})
    starts = {"running_mean": torch.zeros(C), "running_var": torch.ones(C), "num_batches_tracked": torch.tensor(0)}
    for name, value in starts.items():
        got = fresh.buffers.get(name)
        if got is None or not torch.equal(got.value, value):
            fail(
                say(
                    "{call}.{name} should start as {value}",
                    "{call}.{name} 的初始值应为 {value}",
                    call=call,
                    name=name,
                    value=_tensor_text(value),
                )
            )


def _wrong_dtypes(info: Inspection) -> dict[str, str]:
    want = {
        "weight": "float32",
        "bias": "float32",
        "running_mean": "float32",
        "running_var": "float32",
        "num_batches_tracked": "int64",
    }
    found = {}
    for name, dtype in want.items():
        got: TensorInfo | None = info.parameters.get(name) or info.buffers.get(name)
        if got is None:
            continue
        shape = [] if name == "num_batches_tracked" else [C]
        if got.dtype != dtype or got.shape != shape:
            found[name] = say(
                "`{name}` is {got} of shape {got_shape}, expected {dtype} of shape {shape}",
                "`{name}` 是形状 {got_shape} 的 {got}，应为形状 {shape} 的 {dtype}",
                name=name,
                got=got.dtype,
                got_shape=tuple(got.shape),
                dtype=dtype,
                shape=tuple(shape),
            )
    return found


def _tensor_text(value: torch.Tensor) -> str:
    return f"tensor({int(value)})" if value.dim() == 0 else str(value.tolist())


@pytest.mark.category(Category.STATE)
def test_buffers_never_require_grad(harness: Harness) -> None:
    xs = batches((8, C, 5), 2, 20)
    steps = [Step([x], mode="train", input_grad=True, buffers=True) for x in xs]
    replies = harness.run(harness.program("BatchNorm1d", [C], steps=steps)).steps
    for number, reply in enumerate(replies, start=1):
        # Observed from the gradient autograd gave each buffer, as torch holds it (the learner's
        # tensors answer `requires_grad` themselves, and `named_buffers` is theirs to override).
        carrying = [
            name for name, value in reply.buffers.items() if requires_grad_from(value, reply.buffer_gradients.get(name))
        ]
        if carrying:
            lead = say(
                "BatchNorm1d({c}) after {n} training forward(s) on an input that requires grad",
                "BatchNorm1d({c}) 在需要梯度的输入上训练前向 {n} 次之后",
                c=C,
                n=number,
            )
            fail(
                say(
                    "{lead}: buffer(s) {names} require grad (they hold the autograd graph). {named}",
                    "{lead}：buffer {names} 需要梯度（它们带着计算图）。{named}",
                    lead=lead,
                    names=_names(carrying),
                    named=harness.diagnose(STATS_IN_GRAPH),
                ),
                call=lead,
            )


@pytest.mark.category(Category.STATE)
def test_without_affine(harness: Harness) -> None:
    call = f"BatchNorm1d({C}, affine=False)"
    info = harness.inspect("BatchNorm1d", [C], {"affine": False})
    if info.parameters:
        fail(
            say(
                "{call} has parameters {names}; with affine=False it has none (weight and bias are None)",
                "{call} 有参数 {names}；affine=False 时不应有参数（weight 和 bias 为 None）",
                call=call,
                names=_names(list(info.parameters)),
            )
        )
    extra = [k for k in ("weight", "bias") if k in info.state_dict]
    if extra:
        fail(
            say(
                "{call}.state_dict() holds {names}; with affine=False it must not",
                "{call}.state_dict() 含有 {names}；affine=False 时不应有",
                call=call,
                names=_names(extra),
            )
        )


@pytest.mark.category(Category.STATE)
def test_without_running_stats(harness: Harness) -> None:
    call = f"BatchNorm1d({C}, track_running_stats=False)"
    info = harness.inspect("BatchNorm1d", [C], {"track_running_stats": False})
    buffers = [k for k in info.state_dict if k not in info.parameters]
    if buffers:
        fail(
            say(
                "{call}.state_dict() holds {names}; with track_running_stats=False the running statistics are None "
                "(register_buffer(name, None)) and the state_dict holds only weight and bias",
                "{call}.state_dict() 含有 {names}；track_running_stats=False 时运行统计量为 None"
                "（register_buffer(name, None)），state_dict 只含 weight 和 bias",
                call=call,
                names=_names(buffers),
            )
        )


@pytest.mark.category(Category.STATE)
def test_dtype_argument_and_double(harness: Harness) -> None:
    default = harness.inspect("BatchNorm1d", [C])
    made = harness.inspect("BatchNorm1d", [C], {"dtype": "float64"})
    moved = harness.inspect("BatchNorm1d", [C], dtype=torch.float64)
    # A counter that is not int64 to begin with is the state case's finding, not this one's.
    counter = default.buffers.get("num_batches_tracked")
    checked = [
        k for k in STATE_KEYS if k != "num_batches_tracked" or (counter is not None and counter.dtype == "int64")
    ]
    for call, info in ((f"BatchNorm1d({C}, dtype=torch.float64)", made), (f"BatchNorm1d({C}).double()", moved)):
        tensors = {**info.parameters, **{k: v for k, v in info.buffers.items() if v is not None}}
        for name, got in tensors.items():
            want = "int64" if name == "num_batches_tracked" else "float64"
            if name in checked and got.dtype != want:
                fail(
                    say(
                        "{call}: `{name}` is {got}, expected {want} (num_batches_tracked stays int64; the others "
                        "follow the dtype)",
                        "{call}：`{name}` 是 {got}，应为 {want}（num_batches_tracked 保持 int64，其他跟随 dtype）",
                        call=call,
                        name=name,
                        got=got.dtype,
                        want=want,
                    ),
                    call=call,
                )


# -- training forward --------------------------------------------------------------------------

SHAPES = [(8, C), (16, C), (2, C), (6, C, 5), (4, C, 7), (2, C, 2), (1, C, 4)]


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_training_forward(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    key = 1000 + sum(shape) * 7 + len(shape)
    check_train_forward(harness, Input(randn(shape, key, scale=2.0, shift=3.0), "2·N(0,1)+3"), key=key + 1)


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("k", range(3))
def test_training_forward_drawn_shapes(harness: Harness, k: int) -> None:
    n, length = draw(10 + k, 2, 12), draw(20 + k, 4, 9)
    shape = (n, C) if draw(30 + k, 0, 2) == 0 else (n, C, length)
    x = Input(randn(shape, 40 + k, scale=1.5, shift=-2.0), "1.5·N(0,1)-2")
    check_train_forward(harness, x, key=50 + k)


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("shape", [(8, C), (4, C, 5)], ids=["8x3", "4x3x5"])
def test_training_forward_without_affine(harness: Harness, shape: tuple[int, ...]) -> None:
    check_train_forward(
        harness, Input(randn(shape, 60, scale=2.0, shift=3.0), "2·N(0,1)+3"), key=61, kwargs={"affine": False}
    )


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category(Category.STABILITY)
def test_constant_channel(harness: Harness) -> None:
    x = randn((8, C, 4), 70)
    x[:, 1, :] = 5.0
    check_train_forward(harness, Input(x, say("channel-1-constant (5.0)", "通道 1 为常数（5.0）的")), key=71)


@pytest.mark.category(Category.STABILITY)
def test_small_variance(harness: Harness) -> None:
    x = Input(randn((16, C), 72, scale=1e-3), say("small-variance (1e-3·N(0,1))", "小方差（1e-3·N(0,1)）"))
    check_train_forward(harness, x, key=73)


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("shape", [(8, C), (4, C, 5)], ids=["8x3", "4x3x5"])
def test_custom_eps(harness: Harness, shape: tuple[int, ...]) -> None:
    """eps=0.1 with momentum=0.5: both observed through outputs, in training and in eval."""
    kwargs: dict[str, Any] = {"eps": 0.1, "momentum": 0.5}
    state = affine(74)
    xs = [randn(shape, 75 + i, scale=0.3, shift=1.0) for i in range(2)]
    x_eval = randn(shape, 77, scale=0.3)
    steps = [Step([x], mode="train") for x in xs] + [Step([x_eval], mode="eval")]
    replies = harness.run(harness.program("BatchNorm1d", [C], kwargs, state=state, steps=steps)).steps
    ref = reference(kwargs, state).train()
    call = call_text("BatchNorm1d", [C], kwargs)
    with torch.no_grad():
        for x, reply in zip(xs, replies, strict=False):
            harness.assert_close(
                reply.output,
                ref(x.double()),
                tol=FP32,
                call=call,
                on=Input(x, "0.3·N(0,1)+1").describe(harness.device),
                suspects=output_suspects(x, state, eps=0.1),
            )
        ref.eval()
        ignored = reference({"momentum": 0.5}, state).train()
        for x in xs:
            ignored(x.double())
        harness.assert_close(
            replies[-1].output,
            ref(x_eval.double()),
            tol=FP32,
            call=say("{call} in eval after 2 training steps", "{call} 训练 2 步后的 eval", call=call),
            on=Input(x_eval, "0.3·N(0,1)").describe(harness.device),
            suspects=[(EPS_IGNORED, ignored.eval()(x_eval.double()))],
        )


# -- running statistics and train/eval ---------------------------------------------------------


def check_running_stats(
    harness: Harness, xs: list[torch.Tensor], kwargs: dict[str, Any], label: str, *, no_grad: bool = False
) -> None:
    steps = [Step([x], mode="train", buffers=True, no_grad=no_grad) for x in xs]
    replies = harness.run(harness.program("BatchNorm1d", [C], kwargs, steps=steps)).steps
    got = replies[-1].buffers
    ref = reference(kwargs).train()
    with torch.no_grad():
        for x in xs:
            ref(x.double())
    base = call_text("BatchNorm1d", [C], kwargs)
    if no_grad:
        call = say(
            "{call} after {n} training steps under torch.no_grad()",
            "{call} 在 torch.no_grad() 下训练 {n} 步之后",
            call=base,
            n=len(xs),
        )
    else:
        call = say("{call} after {n} training steps", "{call} 训练 {n} 步之后", call=base, n=len(xs))
    on = Input(xs[0], label).describe(harness.device)
    for name in ("running_mean", "running_var"):
        if name not in got:
            fail(
                say(
                    "{call}: no buffer named `{name}` to read (register it with self.register_buffer)",
                    "{call}：读不到名为 `{name}` 的 buffer（请用 self.register_buffer 注册）",
                    call=call,
                    name=name,
                ),
                call=call,
            )
    momentum = kwargs.get("momentum", 0.1)
    keras = simulate(xs, momentum=momentum, keras=True)
    suspects_mean = [(KERAS_MOMENTUM, keras[0])]
    suspects_var = [
        (BIASED_RUNNING_VAR, simulate(xs, momentum=momentum, unbiased=False)[1]),
        (KERAS_MOMENTUM, keras[1]),
    ]
    if "momentum" not in kwargs:  # a default of 0.9 (Keras's number) used as the weight of the new batch
        default_09 = simulate(xs, momentum=0.9)
        suspects_mean.append((KERAS_MOMENTUM, default_09[0]))
        suspects_var.append((KERAS_MOMENTUM, default_09[1]))
        suspects_var.append((KERAS_MOMENTUM, simulate(xs, momentum=0.9, unbiased=False)[1]))
    if xs[0].dim() == 3:
        n_only = simulate(xs, momentum=momentum, n_only=True)
        suspects_mean.append((N_ONLY, n_only[0]))
        suspects_var.append((N_ONLY, n_only[1]))
    harness.assert_close(
        got["running_mean"], ref.running_mean, tol=FP32, call=call, on=on, what="running_mean", suspects=suspects_mean
    )
    harness.assert_close(
        got["running_var"], ref.running_var, tol=FP32, call=call, on=on, what="running_var", suspects=suspects_var
    )
    counter = got.get("num_batches_tracked")
    if counter is not None and counter.numel() == 1 and int(counter.item()) != len(xs):
        fail(
            say(
                "{call}: num_batches_tracked is {got}, expected {n} (one per training forward)",
                "{call}：num_batches_tracked 是 {got}，应为 {n}（每次训练前向加 1）",
                call=call,
                got=counter.item(),
                n=len(xs),
            ),
            call=call,
        )


@pytest.mark.category(Category.TRAIN_EVAL)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(8, C), (6, C, 5)], ids=["8x3", "6x3x5"])
def test_running_statistics(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    check_running_stats(harness, batches(shape, 4, 80), {}, "2·N(0,1)+3")


@pytest.mark.category(Category.TRAIN_EVAL)
@pytest.mark.parametrize("momentum", [None, 0.0, 0.3], ids=["None", "0", "0.3"])
def test_momentum_settings(harness: Harness, momentum: float | None) -> None:
    check_running_stats(harness, batches((10, C, 4), 3, 90), {"momentum": momentum}, "2·N(0,1)+3")


@pytest.mark.category(Category.TRAIN_EVAL)
def test_no_grad_training_still_updates(harness: Harness) -> None:
    xs = batches((8, C), 2, 100)
    check_running_stats(harness, xs, {}, "2·N(0,1)+3", no_grad=True)


@pytest.mark.category(Category.TRAIN_EVAL)
@pytest.mark.parametrize("shape", [(8, C), (4, C, 5)], ids=["8x3", "4x3x5"])
def test_eval_uses_running_stats_and_updates_nothing(harness: Harness, shape: tuple[int, ...]) -> None:
    xs = batches(shape, 3, 110)
    x_eval = randn(shape, 120, scale=0.5, shift=-1.0)
    state = affine(121)
    steps = [Step([x], mode="train", buffers=True) for x in xs] + [Step([x_eval], mode="eval", buffers=True)]
    replies = harness.run(harness.program("BatchNorm1d", [C], state=state, steps=steps)).steps
    ref = reference({}, state).train()
    with torch.no_grad():
        for x in xs:
            ref(x.double())
        expected = ref.eval()(x_eval.double())
        batch_stats = reference({}, state).train()(x_eval.double())
    call = say("BatchNorm1d({c}).eval() after 3 training steps", "BatchNorm1d({c}) 训练 3 步后 .eval()", c=C)
    on = Input(x_eval, "0.5·N(0,1)-1").describe(harness.device)
    harness.assert_close(
        replies[-1].output, expected, tol=FP32, call=call, on=on, suspects=[(EVAL_BATCH_STATS, batch_stats)]
    )
    before, after = replies[-2].buffers, replies[-1].buffers
    for name in BUFFERS:
        if name in before and name in after and not torch.equal(before[name], after[name]):
            fail(
                say(
                    "{call}: {name} changed during an eval forward; eval must update nothing",
                    "{call}：{name} 在 eval 前向中发生了变化；eval 模式不应更新任何东西",
                    call=call,
                    name=name,
                ),
                call=call,
            )


@pytest.mark.category(Category.TRAIN_EVAL)
def test_called_several_times(harness: Harness) -> None:
    torch_module = trained_torch(125).double()
    inputs = [
        Input(randn((5, C), 126, scale=2.0, shift=3.0), "2·N(0,1)+3"),
        Input(randn((4, C, draw(127, 4, 9)), 128), "N(0,1)"),
    ]
    inputs += [Input(randn((5, C), 129, scale=2.0, shift=3.0), "2·N(0,1)+3"), inputs[0]]  # same shape, new values
    state = {k: v.float() if v.is_floating_point() else v for k, v in torch_module.state_dict().items()}

    def expected(x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return torch_module(x.double())

    harness.repeated_calls_case("BatchNorm1d", [C], {}, inputs, expected=expected, state=state, mode="eval")


@pytest.mark.category(Category.TRAIN_EVAL)
def test_without_running_stats_eval_uses_batch(harness: Harness) -> None:
    x = randn((8, C), 130, scale=2.0, shift=3.0)
    kwargs = {"track_running_stats": False}
    program = harness.program("BatchNorm1d", [C], kwargs, mode="eval", steps=[Step([x])])
    got = harness.run(program).steps[0].output
    with torch.no_grad():
        expected = reference(kwargs).eval()(x.double())
    harness.assert_close(
        got,
        expected,
        tol=FP32,
        call=say("{call} in eval", "{call}（eval 模式）", call=call_text("BatchNorm1d", [C], kwargs)),
        on=Input(x, "2·N(0,1)+3").describe(harness.device),
        suspects=output_suspects(x, {}),
    )


@pytest.mark.category(Category.TRAIN_EVAL)
def test_one_value_per_channel_raises_in_training(harness: Harness) -> None:
    x = randn((1, C), 140)
    step = harness.run(harness.program("BatchNorm1d", [C], steps=[Step([x], expect_error=True)])).steps[0]
    if step.raised_builtin != "ValueError":
        got = (
            say("returned a tensor", "返回了一个张量")
            if step.raised is None
            else say("raised {error}", "抛出了 {error}", error=exception_name(step.raised, step.raised_builtin or ""))
        )
        fail(
            say(
                "BatchNorm1d({c}) in training on an input of shape (1, {c}) {got}; it must raise ValueError "
                "(torch: Expected more than 1 value per channel when training)",
                "BatchNorm1d({c}) 在训练模式下对形状 (1, {c}) 的输入{got}；应抛出 ValueError",
                c=C,
                got=got,
            ),
            call=f"BatchNorm1d({C})",
        )


# -- low precision and gradients ---------------------------------------------------------------


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("shape", [(16, C), (8, C, 6)], ids=["16x3", "8x3x6"])
def test_half_precision(harness: Harness, dtype: torch.dtype, shape: tuple[int, ...], device: str) -> None:
    # Moderate inputs: torch's own bf16 BatchNorm misses tolerance once the mean is ~10x the spread.
    x = randn(shape, 150, scale=1.0, shift=0.5).to(dtype)
    check_train_forward(harness, Input(x, "N(0,1)+0.5"), key=151, dtype=dtype)


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(8, C), (6, C, 5)], ids=["8x3", "6x3x5"])
def test_gradients(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    from normkata_reference_batchnorm import BatchNorm1d  # type: ignore[import-not-found]

    harness.gradient_case(
        "BatchNorm1d",
        [C],
        {},
        Input(randn(shape, 161, scale=2.0, shift=3.0), "2·N(0,1)+3"),
        reference=BatchNorm1d(C),
        state=full_state(160),
    )
