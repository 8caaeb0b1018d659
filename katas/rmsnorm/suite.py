"""Hidden suite for the RMSNorm kata (run by `normkata grade`, never copied to the workspace)."""

from __future__ import annotations

import pytest
import torch

from normkata.grading.checks import Harness, Input, Misconception, fail, randn

DEVICES = ["cpu", "cuda"]

EPS_OUTSIDE = Misconception(
    "rms-eps-outside-sqrt",
    "eps added outside the square root",
    "eps 加在了平方根外面",
    "Use x * rsqrt(mean(x²) + eps): eps belongs inside the root.",
    "应写成 x * rsqrt(mean(x²) + eps)：eps 应在根号内。",
)
CENTRED = Misconception(
    "rms-subtracts-mean",
    "the mean is subtracted (that is LayerNorm)",
    "减去了均值（那是 LayerNorm）",
    "RMSNorm does not centre: divide x itself by its root mean square.",
    "RMSNorm 不做中心化：直接用 x 除以它的均方根。",
)
SUM_NOT_MEAN = Misconception(
    "rms-sum-not-mean",
    "sum of squares instead of their mean",
    "用了平方和而不是平方的均值",
    "Average the squares over the last dimension: x.pow(2).mean(-1, keepdim=True).",
    "在最后一维上对平方求均值：x.pow(2).mean(-1, keepdim=True)。",
)
WRONG_AXIS = Misconception(
    "rms-wrong-axis",
    "statistics over the wrong dimension",
    "在错误的维度上求统计量",
    "Each token is normalized on its own: reduce over dim=-1 only.",
    "每个 token 独立归一化：只在 dim=-1 上归约。",
)
NO_WEIGHT = Misconception(
    "rms-ignores-weight",
    "the learnable weight is not applied",
    "没有乘上可学习的 weight",
    "Multiply the normalized x by self.weight.",
    "把归一化后的 x 乘以 self.weight。",
)
NO_UPCAST = Misconception(
    "rms-no-fp32-upcast",
    "no float32 upcast for half-precision input",
    "半精度输入没有升到 float32",
    "Compute mean(x²) in float32 (x.float()) and cast the result back: in fp16, 300² overflows to inf.",
    "在 float32 中计算 mean(x²)（x.float()），再把结果转回：fp16 中 300² 会溢出为 inf。",
)


def reference_output(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """The reference module in float64 on the (already quantised) input."""
    from normkata_reference_rmsnorm import RMSNorm  # type: ignore[import-not-found]

    module = RMSNorm(x.shape[-1], eps=eps, dtype=torch.float64)
    module.weight.data.copy_(weight.double())
    return module(x.double().cpu())


def suspects(x: torch.Tensor, weight: torch.Tensor, eps: float) -> list[tuple[Misconception, torch.Tensor]]:
    x64, w = x.double().cpu(), weight.double()
    ms = x64.pow(2).mean(-1, keepdim=True)
    found = [
        (EPS_OUTSIDE, x64 / (ms.sqrt() + eps) * w),
        (CENTRED, torch.nn.functional.layer_norm(x64, (x.shape[-1],), eps=eps) * w),
        (SUM_NOT_MEAN, x64 * torch.rsqrt(x64.pow(2).sum(-1, keepdim=True) + eps) * w),
        (NO_WEIGHT, x64 * torch.rsqrt(ms + eps)),
    ]
    if x.dim() >= 2 and x.shape[0] != x.shape[-1]:
        found.append((WRONG_AXIS, x64 * torch.rsqrt(x64.pow(2).mean(0, keepdim=True) + eps) * w))
    if x.dtype in (torch.float16, torch.bfloat16):
        naive = x.cpu() * torch.rsqrt(x.cpu().pow(2).mean(-1, keepdim=True) + eps) * weight.to(x.dtype)
        found.append((NO_UPCAST, naive.double()))
    return found


def check_forward(
    harness: Harness, x: Input, *, eps: float = 1e-5, dtype: torch.dtype | None = None, weight_seed: int = 100
) -> None:
    d = x.tensor.shape[-1]
    harness.forward_case(
        "RMSNorm",
        [d],
        {"eps": eps},
        x,
        state={"weight": randn([d], weight_seed, scale=0.5, shift=1.0)},
        dtype=dtype,
        expected=lambda x, state: reference_output(x, state["weight"], eps),
        suspects=lambda x, state: suspects(x, state["weight"], eps),
    )


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category("module state")
def test_weight_parameter_and_state_dict(harness: Harness) -> None:
    reply = harness.run(harness.program("RMSNorm", [6], inspect=True, attrs=["eps"]))
    info = reply["inspect"]
    params = info["parameters"]
    if list(params) != ["weight"]:
        fail(f"RMSNorm(6) has parameters {list(params)}, expected exactly ['weight'] (no bias)")
    weight = params["weight"]
    if weight["shape"] != [6] or weight["dtype"] != "float32" or not weight["requires_grad"]:
        fail(f"RMSNorm(6).weight is {weight['shape']} {weight['dtype']}, expected a float32 Parameter of shape [6]")
    if not torch.equal(weight["value"], torch.ones(6)):
        fail("RMSNorm(6).weight should start at ones")
    if info["state_dict"] != ["weight"]:
        fail(f"RMSNorm(6).state_dict() has keys {info['state_dict']}, expected ['weight']")
    if info["attrs"]["eps"] != {"value": 1e-5}:
        fail(f"RMSNorm(6).eps is {info['attrs']['eps']}, expected the default 1e-05")


@pytest.mark.category("module state")
def test_loads_torch_rmsnorm_state_dict(harness: Harness) -> None:
    torch_module = torch.nn.RMSNorm(8, eps=1e-5)
    torch_module.weight.data = randn([8], 5)
    x = randn([3, 8], 6)
    program = harness.program(
        "RMSNorm", [8], state=dict(torch_module.state_dict()), steps=[{"inputs": [x]}], inspect=True
    )
    got = harness.run(program)["steps"][0]["output"]
    expected = torch.nn.functional.rms_norm(x.double(), (8,), weight=torch_module.weight.double(), eps=1e-5)
    harness.assert_close(
        got,
        expected,
        tol=1e-5,
        call="load_state_dict(nn.RMSNorm(8).state_dict()) then forward",
        on=Input(x, "N(0,1)").describe(),
    )


@pytest.mark.category("module state")
@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_dtype_argument_and_to(harness: Harness, dtype: str) -> None:
    made = harness.run(harness.program("RMSNorm", [4], {"dtype": dtype}, inspect=True))["inspect"]
    if made["parameters"]["weight"]["dtype"] != dtype:
        fail(f"RMSNorm(4, dtype={dtype}).weight is {made['parameters']['weight']['dtype']}, expected {dtype}")
    moved = harness.run(harness.program("RMSNorm", [4], dtype=getattr(torch, dtype), inspect=True))["inspect"]
    if moved["parameters"]["weight"]["dtype"] != dtype:
        fail(f"RMSNorm(4).to({dtype}) left weight as {moved['parameters']['weight']['dtype']}: is it a Parameter?")


# -- forward in fp32 ---------------------------------------------------------------------------

FP32_SHAPES = [(2, 5, 8), (3, 16), (4, 1, 7), (1, 1), (2, 3, 1), (6, 5), (2, 2, 3, 9), (8,), (3, 64)]


@pytest.mark.category("forward fp32")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", FP32_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("seed", [0, 1])
def test_forward(harness: Harness, shape: tuple[int, ...], seed: int, device: str) -> None:
    check_forward(harness, Input(randn(shape, seed, scale=2.0, shift=0.5), "2·N(0,1)+0.5"), weight_seed=seed + 50)


@pytest.mark.category("shapes")
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)], ids=lambda s: "x".join(map(str, s)))
def test_normalizes_the_last_dimension(harness: Harness, shape: tuple[int, ...]) -> None:
    check_forward(harness, Input(randn(shape, 7, scale=3.0), "3·N(0,1)"))


@pytest.mark.category("shapes")
@pytest.mark.parametrize("d", range(1, 9))
def test_small_hidden_sizes(harness: Harness, d: int) -> None:
    check_forward(harness, Input(randn((3, d), d), "N(0,1)"))


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category("numerical stability")
@pytest.mark.parametrize("device", DEVICES)
def test_small_variance_rows(harness: Harness, device: str) -> None:
    check_forward(harness, Input(randn((4, 32), 11, scale=1e-3), "small-variance (1e-3·N(0,1))"))


@pytest.mark.category("numerical stability")
def test_all_zero_rows_stay_finite(harness: Harness) -> None:
    x = randn((4, 16), 12)
    x[1] = 0.0
    x[3] = 0.0
    check_forward(harness, Input(x, "rows 1 and 3 all zero"))


@pytest.mark.category("numerical stability")
def test_constant_rows(harness: Harness) -> None:
    x = torch.full((3, 10), 4.0)
    x[1] = -0.02
    check_forward(harness, Input(x, "constant rows (4.0 and -0.02)"))


@pytest.mark.category("numerical stability")
def test_large_values(harness: Harness) -> None:
    check_forward(harness, Input(randn((3, 24), 13, scale=1e3, shift=1e3), "large (1e3·N(0,1)+1e3)"))


@pytest.mark.category("numerical stability")
@pytest.mark.parametrize("eps", [1e-2, 1e-6])
def test_custom_eps(harness: Harness, eps: float) -> None:
    check_forward(harness, Input(randn((4, 12), 14, scale=0.05), "0.05·N(0,1)"), eps=eps)


# -- low precision -----------------------------------------------------------------------------


@pytest.mark.category("low precision")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_half_precision(harness: Harness, dtype: torch.dtype, seed: int, device: str) -> None:
    x = randn((4, 6, 64), 20 + seed).to(dtype)
    check_forward(harness, Input(x, "N(0,1)"), dtype=dtype, weight_seed=30 + seed)


@pytest.mark.category("low precision")
@pytest.mark.parametrize("device", DEVICES)
def test_fp16_activations_near_300(harness: Harness, device: str) -> None:
    x = (300 * (1 + 0.1 * randn((3, 64), 21))).to(torch.float16)
    check_forward(harness, Input(x, "activations near 300 (300² overflows fp16)"), dtype=torch.float16)


@pytest.mark.category("low precision")
def test_bf16_large_values(harness: Harness) -> None:
    x = randn((3, 128), 22, scale=500.0).to(torch.bfloat16)
    check_forward(harness, Input(x, "large (500·N(0,1))"), dtype=torch.bfloat16)


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category("gradients")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(2, 5, 8), (7, 3)], ids=lambda s: "x".join(map(str, s)))
def test_gradients(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    from normkata_reference_rmsnorm import RMSNorm  # type: ignore[import-not-found]

    d = shape[-1]
    harness.gradient_case(
        "RMSNorm",
        [d],
        {},
        Input(randn(shape, 40), "N(0,1)"),
        reference=RMSNorm(d),
        state={"weight": randn([d], 41, scale=0.5, shift=1.0)},
    )
