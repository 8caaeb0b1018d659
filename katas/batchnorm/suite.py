"""Hidden suite for the BatchNorm1d kata (run by `normkata grade`, never copied to the workspace)."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from normkata.grading.checks import (
    Harness,
    Input,
    Misconception,
    call_text,
    expect_attr,
    expect_keys,
    expect_parameters,
    fail,
    randn,
)

DEVICES = ["cpu", "cuda"]
C = 3  # channels; never equal to the length L used below, so a wrong broadcast cannot pass

BIASED_RUNNING_VAR = Misconception(
    "bn-biased-running-var",
    "running_var updated with the biased variance",
    "运行方差用了有偏方差",
    "The running estimate uses the unbiased batch variance: var * n / (n - 1); the output still uses the biased one.",
    "运行方差的更新要用无偏的 batch 方差：var * n / (n - 1)；输出仍用有偏方差。",
)
KERAS_MOMENTUM = Misconception(
    "bn-keras-momentum",
    "momentum weighs the old value (the Keras convention)",
    "momentum 加权的是旧值（Keras 的约定）",
    "In PyTorch, running = (1 - momentum) * running + momentum * batch: momentum=0.1 is the weight of the new batch.",
    "PyTorch 中 running = (1 - momentum) * running + momentum * batch：momentum=0.1 是新 batch 的权重。",
)
N_ONLY = Misconception(
    "bn-stats-over-n-only",
    "statistics over N only for (N, C, L) input",
    "(N, C, L) 输入只在 N 上求统计量",
    "For (N, C, L), each channel pools all N·L values: reduce over dims (0, 2).",
    "对 (N, C, L)，每个通道汇总全部 N·L 个值：在 (0, 2) 维上归约。",
)
EVAL_BATCH_STATS = Misconception(
    "bn-eval-uses-batch-stats",
    "eval mode still normalizes with batch statistics",
    "eval 模式仍用 batch 统计量归一化",
    "When not self.training (and track_running_stats), normalize with running_mean and running_var.",
    "当 not self.training（且 track_running_stats）时，用 running_mean 和 running_var 归一化。",
)
UNBIASED_OUTPUT = Misconception(
    "bn-unbiased-output",
    "the output is normalized with the unbiased variance",
    "输出用无偏方差做了归一化",
    "Normalize the batch with its biased variance (unbiased=False); only the running estimate is unbiased.",
    "用 batch 的有偏方差（unbiased=False）归一化；只有运行估计用无偏方差。",
)


def _dims(x: torch.Tensor) -> tuple[int, ...]:
    return (0,) if x.dim() == 2 else (0, 2)


def _view(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return v.view(1, -1) if x.dim() == 2 else v.view(1, -1, 1)


def batches(shape: tuple[int, ...], count: int, seed: int) -> list[torch.Tensor]:
    """Inputs with a nonzero mean and non-unit variance, as GRADING.md asks."""
    return [randn(shape, seed + i, scale=2.0, shift=3.0) for i in range(count)]


def affine(seed: int) -> dict[str, torch.Tensor]:
    """Random weight and bias with fresh running statistics: a full state_dict."""
    return {
        "weight": randn([C], seed, scale=0.5, shift=1.0),
        "bias": randn([C], seed + 1, scale=0.5),
        "running_mean": torch.zeros(C),
        "running_var": torch.ones(C),
        "num_batches_tracked": torch.tensor(0),
    }


def reference(kwargs: dict[str, Any], state: dict[str, torch.Tensor] | None) -> torch.nn.Module:
    from normkata_reference_batchnorm import BatchNorm1d  # type: ignore[import-not-found]

    module = BatchNorm1d(C, **kwargs).double()
    if state:
        module.load_state_dict({k: v.double() if v.is_floating_point() else v for k, v in state.items()})
    return module


def simulate(xs: list[torch.Tensor], *, momentum: float | None = 0.1, unbiased: bool = True, keras: bool = False,
             n_only: bool = False) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
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


def train_then(
    harness: Harness,
    xs: list[torch.Tensor],
    kwargs: dict[str, Any],
    *,
    state: dict[str, torch.Tensor] | None = None,
    extra: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    steps = [{"inputs": [x], "buffers": True, "mode": "train"} for x in xs] + (extra or [])
    return harness.run(harness.program("BatchNorm1d", [C], kwargs, state=state, steps=steps))["steps"]


def check_running_stats(
    harness: Harness, xs: list[torch.Tensor], kwargs: dict[str, Any], label: str
) -> dict[str, torch.Tensor]:
    steps = train_then(harness, xs, kwargs)
    ref = reference(kwargs, None).train()
    for x in xs:
        ref(x.double())
    got = steps[-1]["buffers"]
    call = f"{call_text('BatchNorm1d', [C], kwargs)} × {len(xs)} training steps"
    on = Input(xs[0], label).describe(harness.device)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        if name not in got:
            fail(f"{call}: no buffer named {name!r} (use self.register_buffer)")
    if got["num_batches_tracked"].dtype != torch.int64 or int(got["num_batches_tracked"]) != len(xs):
        fail(
            f"{call} on {on}: num_batches_tracked is {got['num_batches_tracked']!r}, expected tensor({len(xs)}) (int64)"
        )
    momentum = kwargs.get("momentum", 0.1)
    suspects_mean = [(KERAS_MOMENTUM, simulate(xs, momentum=momentum, keras=True)[0])]
    suspects_var = [
        (BIASED_RUNNING_VAR, simulate(xs, momentum=momentum, unbiased=False)[1]),
        (KERAS_MOMENTUM, simulate(xs, momentum=momentum, keras=True)[1]),
    ]
    if xs[0].dim() == 3:
        suspects_mean.append((N_ONLY, simulate(xs, momentum=momentum, n_only=True)[0]))
        suspects_var.append((N_ONLY, simulate(xs, momentum=momentum, n_only=True)[1]))
    harness.assert_close(got["running_mean"], ref.running_mean, tol=1e-5, call=call, on=on, what="running_mean",
                         suspects=suspects_mean)  # fmt: skip
    harness.assert_close(got["running_var"], ref.running_var, tol=1e-5, call=call, on=on, what="running_var",
                         suspects=suspects_var)  # fmt: skip
    return got


def output_suspects(x: torch.Tensor, state: dict[str, torch.Tensor], eps: float = 1e-5) -> list:
    x64 = x.double().cpu()
    dims = _dims(x)
    w, b = _view(x, state["weight"].double()), _view(x, state["bias"].double())
    mean = _view(x, x64.mean(dims))
    found = [(UNBIASED_OUTPUT, (x64 - mean) / torch.sqrt(_view(x, x64.var(dims, unbiased=True)) + eps) * w + b)]
    if x.dim() == 3:
        n_mean, n_var = x64.mean(0, keepdim=True), x64.var(0, unbiased=False, keepdim=True)
        found.append((N_ONLY, (x64 - n_mean) / torch.sqrt(n_var + eps) * w + b))
    return found


def check_train_forward(harness: Harness, x: Input, *, seed: int, dtype: torch.dtype | None = None) -> None:
    state = affine(seed)

    def expected(x_in: torch.Tensor, st: dict[str, torch.Tensor]) -> torch.Tensor:
        return reference({}, st).train()(x_in.double().cpu())

    harness.forward_case(
        "BatchNorm1d", [C], {}, x, state=state, dtype=dtype, expected=expected, suspects=output_suspects, mode="train"
    )


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category("module state")
def test_parameters_buffers_and_state_dict(harness: Harness) -> None:
    call = f"BatchNorm1d({C})"
    info = harness.inspect(
        "BatchNorm1d", [C], attrs=["num_features", "eps", "momentum", "affine", "track_running_stats"]
    )
    expect_parameters(call, info, {"weight": torch.ones(C), "bias": torch.zeros(C)})
    expect_keys(
        call,
        "state_dict keys",
        info["state_dict"],
        ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"],
    )
    buffers = info["buffers"]
    expect_keys(call, "buffers", [k for k, v in buffers.items() if v is not None],
                ["running_mean", "running_var", "num_batches_tracked"])  # fmt: skip
    for name, value in (("running_mean", torch.zeros(C)), ("running_var", torch.ones(C))):
        got = buffers[name]
        if got["dtype"] != "float32" or got["shape"] != [C] or not torch.equal(got["value"], value):
            fail(f"{call}.{name} should be a float32 buffer of shape [{C}] starting at {value.tolist()}")
        if got["requires_grad"] or got["is_parameter"]:
            fail(f"{call}.{name} must be a buffer that does not require grad, not a parameter")
    tracked = buffers["num_batches_tracked"]
    if tracked["dtype"] != "int64" or tracked["shape"] != [] or int(tracked["value"]) != 0:
        fail(
            f"{call}.num_batches_tracked should be a 0-dim int64 buffer starting at 0, "
            f"got {tracked['dtype']} of shape {tracked['shape']}"
        )
    for name, value in (("num_features", C), ("eps", 1e-5), ("momentum", 0.1), ("affine", True),
                        ("track_running_stats", True)):  # fmt: skip
        expect_attr(call, info, name, value)


@pytest.mark.category("module state")
def test_without_affine(harness: Harness) -> None:
    call = f"BatchNorm1d({C}, affine=False)"
    info = harness.inspect("BatchNorm1d", [C], {"affine": False}, attrs=["weight", "bias"])
    expect_parameters(call, info, {})
    expect_attr(call, info, "weight", None)
    expect_attr(call, info, "bias", None)
    expect_keys(call, "state_dict keys", info["state_dict"], ["running_mean", "running_var", "num_batches_tracked"])


@pytest.mark.category("module state")
def test_without_running_stats(harness: Harness) -> None:
    call = f"BatchNorm1d({C}, track_running_stats=False)"
    info = harness.inspect(
        "BatchNorm1d", [C], {"track_running_stats": False}, attrs=["running_mean", "running_var", "num_batches_tracked"]
    )
    expect_keys(call, "state_dict keys", info["state_dict"], ["weight", "bias"])
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        expect_attr(call, info, name, None)


@pytest.mark.category("module state")
def test_double_keeps_num_batches_tracked_int64(harness: Harness) -> None:
    info = harness.run(harness.program("BatchNorm1d", [C], dtype=torch.float64, inspect=True))["inspect"]
    buffers = info["buffers"]
    if buffers["running_mean"]["dtype"] != "float64" or buffers["running_var"]["dtype"] != "float64":
        fail(
            f"BatchNorm1d({C}).double() left the running stats in {buffers['running_mean']['dtype']}: are they buffers?"
        )
    if buffers["num_batches_tracked"]["dtype"] != "int64":
        fail(f"BatchNorm1d({C}).double() turned num_batches_tracked into {buffers['num_batches_tracked']['dtype']}")


@pytest.mark.category("module state")
def test_loads_torch_batchnorm_state_dict(harness: Harness) -> None:
    torch_module = torch.nn.BatchNorm1d(C)
    torch_module.load_state_dict(affine(5))
    for x in batches((16, C), 3, 60):
        torch_module(x)
    torch_module.eval()
    x = randn((5, C), 70, scale=2.0, shift=3.0)
    program = harness.program(
        "BatchNorm1d", [C], state=dict(torch_module.state_dict()), mode="eval", steps=[{"inputs": [x]}]
    )
    got = harness.run(program)["steps"][0]["output"]
    expected = torch_module.double()(x.double())
    harness.assert_close(got, expected, tol=1e-5, call="load_state_dict(trained nn.BatchNorm1d) then eval forward",
                         on=Input(x, "2·N(0,1)+3").describe())  # fmt: skip


# -- training forward --------------------------------------------------------------------------

SHAPES = [(8, C), (16, C), (2, C), (6, C, 5), (4, C, 7), (2, C, 2)]


@pytest.mark.category("forward fp32")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("seed", [0, 1])
def test_training_forward(harness: Harness, shape: tuple[int, ...], seed: int, device: str) -> None:
    check_train_forward(harness, Input(randn(shape, seed, scale=2.0, shift=3.0), "2·N(0,1)+3"), seed=seed + 50)


@pytest.mark.category("numerical stability")
def test_constant_channel(harness: Harness) -> None:
    x = randn((8, C, 4), 12)
    x[:, 1, :] = 5.0
    check_train_forward(harness, Input(x, "channel 1 constant"), seed=13)


@pytest.mark.category("numerical stability")
def test_small_variance(harness: Harness) -> None:
    check_train_forward(harness, Input(randn((16, C), 14, scale=1e-3), "small-variance (1e-3·N(0,1))"), seed=15)


# -- running statistics and train/eval ---------------------------------------------------------


@pytest.mark.category("train/eval")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(8, C), (6, C, 5)], ids=["8x3", "6x3x5"])
def test_running_statistics(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    check_running_stats(harness, batches(shape, 4, 80), {}, "2·N(0,1)+3")


@pytest.mark.category("train/eval")
@pytest.mark.parametrize("momentum", [None, 0.0, 0.5], ids=["None", "0", "0.5"])
def test_momentum_settings(harness: Harness, momentum: float | None) -> None:
    check_running_stats(harness, batches((10, C, 4), 3, 90), {"momentum": momentum}, "2·N(0,1)+3")


@pytest.mark.category("train/eval")
def test_no_grad_training_still_updates(harness: Harness) -> None:
    xs = batches((8, C), 2, 100)
    steps = [{"inputs": [x], "buffers": True, "mode": "train", "no_grad": True} for x in xs]
    got = harness.run(harness.program("BatchNorm1d", [C], steps=steps))["steps"][-1]["buffers"]
    expected_mean, _ = simulate(xs)
    harness.assert_close(
        got.get("running_mean", torch.zeros(C)),
        expected_mean,
        tol=1e-5,
        call=f"BatchNorm1d({C}) trained under torch.no_grad()",
        on=Input(xs[0], "2·N(0,1)+3").describe(),
        what="running_mean",
    )


@pytest.mark.category("train/eval")
@pytest.mark.parametrize("shape", [(8, C), (4, C, 5)], ids=["8x3", "4x3x5"])
def test_eval_uses_running_stats_and_updates_nothing(harness: Harness, shape: tuple[int, ...]) -> None:
    xs = batches(shape, 3, 110)
    x_eval = randn(shape, 120, scale=0.5, shift=-1.0)
    state = affine(121)
    steps = train_then(harness, xs, {}, state=state, extra=[{"inputs": [x_eval], "buffers": True, "mode": "eval"}])
    ref = reference({}, state).train()
    for x in xs:
        ref(x.double())
    ref.eval()
    expected = ref(x_eval.double())
    call, on = f"BatchNorm1d({C}).eval() after 3 training steps", Input(x_eval, "0.5·N(0,1)-1").describe(harness.device)
    batch_stats = reference({}, state).train()(x_eval.double())
    harness.assert_close(steps[-1]["output"], expected, tol=1e-5, call=call, on=on,
                         suspects=[(EVAL_BATCH_STATS, batch_stats)])  # fmt: skip
    before, after = steps[-2]["buffers"], steps[-1]["buffers"]
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        if name in before and not torch.equal(before[name], after[name]):
            fail(f"{call}: {name} changed during an eval forward; eval must update nothing")


@pytest.mark.category("train/eval")
def test_without_running_stats_eval_uses_batch(harness: Harness) -> None:
    x = randn((8, C), 130, scale=2.0, shift=3.0)
    program = harness.program("BatchNorm1d", [C], {"track_running_stats": False}, mode="eval", steps=[{"inputs": [x]}])
    got = harness.run(program)["steps"][0]["output"]
    expected = reference({"track_running_stats": False}, None).eval()(x.double())
    harness.assert_close(got, expected, tol=1e-5, call=f"BatchNorm1d({C}, track_running_stats=False).eval()",
                         on=Input(x, "2·N(0,1)+3").describe())  # fmt: skip


@pytest.mark.category("train/eval")
def test_one_value_per_channel_raises_in_training(harness: Harness) -> None:
    x = randn((1, C), 140)
    program = harness.program("BatchNorm1d", [C], steps=[{"inputs": [x], "expect_error": True}])
    step = harness.run(program)["steps"][0]
    if step.get("raised") != "ValueError":
        got = "returned a tensor" if step.get("raised") is None else f"raised {step['raised']}"
        fail(f"BatchNorm1d({C}) in training on an input of shape (1, {C}) {got}; "
             "torch raises ValueError: Expected more than 1 value per channel when training")  # fmt: skip


# -- low precision and gradients ---------------------------------------------------------------


@pytest.mark.category("low precision")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("shape", [(16, C), (8, C, 6)], ids=["16x3", "8x3x6"])
def test_half_precision(harness: Harness, dtype: torch.dtype, shape: tuple[int, ...], device: str) -> None:
    # Moderate inputs: torch's own bf16 BatchNorm misses tolerance once the mean is ~10x the spread.
    x = randn(shape, 150, scale=1.0, shift=0.5).to(dtype)
    check_train_forward(harness, Input(x, "N(0,1)+0.5"), seed=151, dtype=dtype)


@pytest.mark.category("gradients")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(8, C), (6, C, 5)], ids=["8x3", "6x3x5"])
def test_gradients(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    from normkata_reference_batchnorm import BatchNorm1d  # type: ignore[import-not-found]

    state = affine(160)
    harness.gradient_case(
        "BatchNorm1d",
        [C],
        {},
        Input(randn(shape, 161, scale=2.0, shift=3.0), "2·N(0,1)+3"),
        reference=BatchNorm1d(C),
        state=state,
    )
