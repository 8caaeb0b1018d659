"""A second, independent check of the bank's answer keys.

Each item's own `verify` code is one computation; these are others, written separately: closed
forms, numpy's float formats instead of torch's, functional ops instead of modules. A fact that
both agree on is unlikely to be a coincidence of one snippet.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from normkata.content.bank import load_bank
from normkata.practice.answers import is_correct

BANK = load_bank()
D64 = torch.float64


def _ln(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(((x - mean) ** 2).mean(-1, keepdim=True) + eps)


def _rms(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps)


def _bn_train(x: torch.Tensor, running_mean: torch.Tensor, running_var: torch.Tensor, momentum: float) -> None:
    F.batch_norm(x, running_mean, running_var, training=True, momentum=momentum, eps=1e-5)


# -- numeric answers --------------------------------------------------------------------------


def _running_mean_step() -> float:
    mean, var = torch.zeros(4), torch.ones(4)
    _bn_train(torch.tensor([[2.0] * 4, [4.0] * 4]), mean, var, 0.1)
    return mean[0].item()


def _running_var_unbiased() -> float:
    mean, var = torch.zeros(1, dtype=D64), torch.ones(1, dtype=D64)
    x = torch.tensor([[-1.0], [1.0], [-1.0], [1.0]], dtype=D64) * 1.5**0.5  # biased variance 1.5
    _bn_train(x, mean, var, 0.1)
    return var.item()


def _momentum_none() -> float:
    bn = nn.BatchNorm1d(1, momentum=None)
    for m in (1.0, 2.0, 6.0):
        bn(torch.tensor([[m - 1.0], [m + 1.0]]))
    assert bn.running_mean is not None
    return bn.running_mean.item()


def _fp16_largest_square() -> float:
    x = np.float16(200.0)
    with np.errstate(over="ignore"):
        while np.isfinite(np.nextafter(x, np.float16(np.inf)) * np.nextafter(x, np.float16(np.inf))):
            x = np.nextafter(x, np.float16(np.inf))
    return float(x)


def _bf16_from_bits(bits: int) -> float:
    return float(np.frombuffer(np.uint32(bits << 16).tobytes(), dtype=np.float32)[0])


def _bf16_add(a: float, b: float) -> float:
    # Round the exact sum to bf16 by hand: nearest, ties to even, on fp32's top 16 bits.
    bits = int(np.frombuffer(np.float32(a + b).tobytes(), dtype=np.uint32)[0])
    low, high = bits & 0xFFFF, bits >> 16
    if low > 0x8000 or (low == 0x8000 and high & 1):
        high += 1
    return _bf16_from_bits(high)


def _gamma_gradient() -> float:
    rows = [np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 4.0])]
    return sum(float((r[2] - r.mean()) / math.sqrt(r.var() + 1e-5)) for r in rows)


def _identity_gradient() -> float:
    d = 6
    norms = [nn.RMSNorm(d, eps=1e-5).double() for _ in range(6)]
    outs = [nn.Linear(d, d).double() for _ in range(6)]
    for layer in outs:
        nn.init.zeros_(layer.weight)
        nn.init.zeros_(layer.bias)
    x = torch.randn(3, d, dtype=D64, requires_grad=True)
    h = x
    for norm, out in zip(norms, outs, strict=True):
        h = h + out(torch.sin(norm(h)))
    upstream = torch.randn_like(h)
    (h * upstream).sum().backward()
    assert x.grad is not None and torch.allclose(x.grad, upstream)
    return 1.0


def _bn_bias_gradient() -> float:
    # A BatchNorm written out by hand; d(sum of outputs)/d(bias) counts the values of a channel.
    x = torch.randn(4, 3, 5, dtype=D64)
    bias = torch.zeros(3, dtype=D64, requires_grad=True)
    mean = x.mean((0, 2), keepdim=True)
    var = ((x - mean) ** 2).mean((0, 2), keepdim=True)
    ((x - mean) / torch.sqrt(var + 1e-5) + bias[None, :, None]).sum().backward()
    assert bias.grad is not None and torch.all(bias.grad == bias.grad[0])
    return bias.grad[0].item()


def _ln_sum_loss_gradient() -> float:
    # The closed form dx = r·(g − mean(g) − x̂·mean(g·x̂)) with g = 1, in numpy.
    x = np.random.default_rng(3).normal(size=(3, 8))
    mean = x.mean(-1, keepdims=True)
    r = 1 / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-5)
    xhat = (x - mean) * r
    g = np.ones_like(x)
    dx = r * (g - g.mean(-1, keepdims=True) - xhat * (g * xhat).mean(-1, keepdims=True))
    return float(np.abs(dx).max())


def _rms_small_example() -> float:
    # dx₀ = r·g₀ − x₀·r³·mean(x·g) for x = [3, 4], g = [1, 0], eps = 0, by hand.
    r = 1 / math.sqrt((3**2 + 4**2) / 2)
    return r * 1 - 3 * r**3 * (3 * 1 + 4 * 0) / 2


def _largest_fp16_with_finite_square() -> float:
    with np.errstate(over="ignore"):
        values = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16)
        return float(values[np.isfinite(values * values)].max())


def _chan_between_term() -> float:
    a, b = np.array([-1.0, 1.0]), np.array([3.0, 4.0, 5.0])
    both = np.concatenate([a, b])
    m2 = lambda v: float(((v - v.mean()) ** 2).sum())  # noqa: E731
    return m2(both) - m2(a) - m2(b)


def _qk_max_logit() -> float:
    # Cauchy-Schwarz: two RMS-normalized vectors have length sqrt(d); equal ones reach the bound.
    d = 128
    v = np.random.default_rng(5).normal(size=d)
    v = v / np.sqrt((v**2).mean())
    assert abs(np.linalg.norm(v) - math.sqrt(d)) < 1e-9
    return float(v @ v / math.sqrt(d))


NUMERIC: dict[str, Callable[[], float]] = {
    "bn-running-mean-step": _running_mean_step,
    "bn-running-var-unbiased": _running_var_unbiased,
    "bn-momentum-none": _momentum_none,
    "bn-padding-bias": lambda: (64 * 2.0 + 64 * 0.0) / 128,
    "cost-params-llama7b": lambda: (2 * 32 + 1) * 4096,
    "cost-bytes-moved": lambda: 2 * (8 * 512 * 512) * 2 / 1e6,
    "cost-minimind-forward-gain": lambda: 100 * (1 - 2.1 / 2.3),
    "cost-reductions": lambda: 2,
    "cost-backward-ratio": lambda: 45 / 23,
    "cost-layernorm-params": lambda: sum(p.numel() for p in nn.LayerNorm(4096, bias=True).parameters()),
    "ln-example-value": lambda: (1 - 2.5) / math.sqrt(np.var([1, 2, 3, 4]) + 1e-5),
    "ln-beta-gradient": lambda: 2 * 3 * 1.0,
    "ln-param-count-tuple": lambda: 2 * 4 * 5,
    "ln-gamma-gradient-value": _gamma_gradient,
    "prec-fp16-max": lambda: float(np.frombuffer(np.uint16(0x7BFF).tobytes(), dtype=np.float16)[0]),
    "prec-bf16-epsilon": lambda: _bf16_from_bits(0x3F81) - _bf16_from_bits(0x3F80),
    "prec-fp16-tiny": lambda: float(np.frombuffer(np.uint16(0x0400).tobytes(), dtype=np.float16)[0]),
    "prec-largest-square": _fp16_largest_square,
    "prec-swamping": lambda: _bf16_add(256.0, 1.0),
    "pn-stream-growth": lambda: math.sqrt(1 + 2 * 8),
    "pn-count-prenorm": lambda: 2 * 12 + 1,
    "pn-identity-gradient": _identity_gradient,
    "rms-example-value": lambda: 4 / math.sqrt((9 + 16) / 2),
    "rms-param-count": lambda: (2 * 8 + 1) * 512,
    "rms-output-rms": lambda: float(_rms(torch.randn(7, 33, dtype=D64) * 5 + 2, 0.0).pow(2).mean(-1).sqrt().max()),
    "rms-zero-row": lambda: float(_rms(torch.zeros(1, 9)).abs().max()),
    "rms-torch-eps-value": lambda: float(np.finfo(np.float32).eps),
    "why-vanishing-product": lambda: math.exp(8 * math.log(0.6)),
    "why-exploding-product": lambda: math.exp(10 * math.log(1.5)),
    "why-init-scale": lambda: math.sqrt(256 * 1.0 * 1.0),
    "bwd-bn-bias-gradient": _bn_bias_gradient,
    "bwd-ln-sum-loss-gradient": _ln_sum_loss_gradient,
    "bwd-rms-small-example": _rms_small_example,
    "gn-values-per-group": lambda: (32 // 8) * 16 * 16,
    "gn-param-count": lambda: 2 * 256,
    "inf-traffic-saved": lambda: ((2 + 1) + (1 + 1) - (2 + 2)) * 4096 * 4096 * 2 / 2**20,
    "inf-bf16-swamping": lambda: _bf16_add(256.0, _bf16_add(0.9, 0.0)),
    "qk-max-logit": _qk_max_logit,
    "qk-norm-param-count": lambda: 128 + 128,
    "stat-fp32-spacing-1e12": lambda: float(np.spacing(np.float32(1e12))),
    "stat-fp32-spacing-1e6": lambda: float(np.spacing(np.float32(1e6))),
    "stat-chan-between-term": _chan_between_term,
    # -- placement, normfree (DyT) and ngpt: recomputed from the formulas, not from the snippets --
    "pl-gemma-norm-params": lambda: (4 * 26 + 1) * 2304,
    "pl-gemma3-norm-modules": lambda: 4 + 2,
    "pl-olmo2-norm-params": lambda: (4 * 16 + 1) * 2048,
    "pl-deepnorm-alpha": lambda: math.sqrt(6),  # (2 · 18)^(1/4) = 36^(1/4)
    "pl-deepnorm-beta": lambda: 1 / math.sqrt(12),  # (8 · 18)^(-1/4) = 144^(-1/4)
    "dyt-param-count": lambda: 2 * 4096 + 1,
    "dyt-value": lambda: math.tanh(1.5),
    "dyt-saturated-share": lambda: 2 * (1 - 0.5 * (1 + math.erf(1 / math.sqrt(2)))),
    "ngpt-softmax-scale": lambda: math.sqrt(64),
    "ngpt-cosine": lambda: 24 / 25,
    "ngpt-alpha-stored": lambda: 1 / 32,
    # Kernel katas' topic: closed forms and numpy's float16, not the items' torch snippets.
    "kern-arithmetic-intensity": lambda: 4 * 4096**2 / (2 * 4096**2 * 2 + 2 * 4096),
    "kern-fusion-traffic": lambda: (2 + 1 + 2 + 2) / 2,
    "kern-masked-lanes": lambda: 2 ** math.ceil(math.log2(300)) - 300,
    "kern-mean-over-block": lambda: round(1 / math.sqrt((1 + 4 + 4) / 4), 3),
    "kern-fp16-square": _largest_fp16_with_finite_square,
    # The 2026 subjects: closed forms from the papers' and models' formulas.
    "dyt-derf-param-count": lambda: 2 * 768 + 2,  # weight, bias per channel; alpha, shift one each
    "dyt-derf-value": lambda: math.erf(0.5),
    "pn-lns-factor": lambda: 25**-0.5,
    "pl-subln-init": lambda: math.log(48) ** 0.5,
    "pl-subln-params": lambda: 2 * (1024 + 4096),
    "rms-zero-centred-decay": lambda: math.exp(10_000 * math.log1p(-1e-4)),
    "rms-gemma-convert": lambda: 1 - 0.25,
    "qk-clip-factor": lambda: (100 / 250) ** 0.5,
    "qk-softcap-value": lambda: 50 * math.tanh(100 / 50),
    "inf-mla-cache-values": lambda: 512 + 64,
    "bn-eps-small-variance": lambda: 0.01 / math.sqrt(1e-4 + 1e-3),
    "kern-persistent-partial-bytes": lambda: 132 * 4096 * np.dtype(np.float32).itemsize,
    # The 2027 subjects: closed forms, not the items' torch snippets.
    "qk-scale-one-bound": lambda: math.sqrt(256) * math.sqrt(256),  # |q|·|k| for RMS-normalized vectors
    "out-rmsnorm-squash": lambda: 1000 / math.sqrt((1000**2 + 4095) / 4096),
    "out-sink-logit": lambda: math.log(0.9 / 0.1 * 99),
    "pl-mixln-count": lambda: 32 - math.floor(0.25 * 32),
    "cond-modulation-params": lambda: (1152 + 1) * 6 * 1152,
}


def test_every_numeric_question_has_an_independent_check() -> None:
    assert {q.id for q in BANK.questions if q.type == "numeric"} == set(NUMERIC)


@pytest.mark.parametrize("item_id", sorted(NUMERIC))
def test_numeric_key_recomputed_independently(item_id: str) -> None:
    question = BANK.question(item_id)
    assert question is not None
    assert is_correct(question, float(NUMERIC[item_id]())), (NUMERIC[item_id](), question.answer)


# -- facts behind choice, true/false and order answers -----------------------------------------


def test_rmsnorm_default_eps_is_float32_epsilon_for_half_inputs() -> None:
    for dtype in (torch.bfloat16, torch.float16):
        row = torch.full((1, 8), 1e-3, dtype=dtype)
        out = nn.RMSNorm(8).to(dtype)(row).float()[0, 0].item()
        by_hand = 1e-3 / math.sqrt(1e-6 + float(np.finfo(np.float32).eps))
        assert abs(out - by_hand) < 0.01  # ≈ 0.945
        assert abs(out - 1e-3 / math.sqrt(1e-6 + float(torch.finfo(dtype).eps))) > 0.5


def test_fp16_overflow_threshold() -> None:
    with np.errstate(over="ignore"):
        assert np.float16(65519.0) == 65504 and np.isinf(np.float16(65520.0))
    assert torch.tensor(65519.0).half().item() == 65504 and torch.tensor(65520.0).half().isinf()


def test_bf16_spacing_and_rounding_error() -> None:
    one = _bf16_from_bits(0x3F80)
    assert _bf16_from_bits(0x3F81) - one == 2**-7  # spacing just above 1
    assert one - _bf16_from_bits(0x3F7F) == 2**-8  # spacing just below 1
    x = torch.rand(100_000, dtype=torch.float32) + 0.5
    assert ((x.bfloat16().float() - x).abs() / x).max().item() <= 2**-8


def test_fp16_subnormals_and_eps_underflow() -> None:
    assert float(np.float16(1e-8)) == 0.0 and float(np.float16(1e-5)) > 0
    assert abs(float(np.float16(1e-5)) - 1.0014e-5) < 1e-8
    assert float(np.frombuffer(np.uint16(1).tobytes(), dtype=np.float16)[0]) == 2**-24


def test_naive_fp16_rmsnorm_and_late_upcast_zero_the_row() -> None:
    x = torch.full((1, 64), 300.0).half()
    assert torch.all(_rms(x) == 0)
    assert torch.all((x.float() * torch.rsqrt(x.pow(2).mean(-1, keepdim=True).float() + 1e-5)) == 0)
    assert torch.allclose(_rms(x.float()), torch.ones(1, 64), atol=1e-4)
    assert float(torch.tensor(300.0).bfloat16() ** 2) == 90112


def test_batchnorm_semantics() -> None:
    x = torch.randn(5, 3, 7, dtype=D64) * 2 + 1
    out = F.batch_norm(x, None, None, training=True, eps=1e-5)
    flat = x.transpose(0, 1).reshape(3, -1)
    manual = (x - flat.mean(1)[None, :, None]) / torch.sqrt(flat.var(1, unbiased=False)[None, :, None] + 1e-5)
    assert torch.allclose(out, manual)  # bn-axes-ncl: one statistic per channel over N·L
    buggy = (x - x.mean(0)) / torch.sqrt(x.var(0, unbiased=False) + 1e-5)
    assert not torch.allclose(buggy, out)  # bn-bug-3d-axes
    four = torch.randn(4, 2, dtype=D64)
    ratio = (
        (four - four.mean(0))
        / torch.sqrt(four.var(0) + 1e-12)
        / F.batch_norm(four, None, None, training=True, eps=1e-12)
    )
    assert torch.allclose(ratio, torch.full_like(ratio, math.sqrt(3 / 4)))  # bn-bug-unbiased-output
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.BatchNorm1d(8)(torch.randn(1, 8))  # bn-train-batch-one
    bn = nn.BatchNorm1d(3)
    with torch.no_grad():
        bn(torch.randn(8, 3))
    assert (
        bn.num_batches_tracked is not None and int(bn.num_batches_tracked) == 1
    )  # bn-bug-forgot-eval: no_grad still updates
    assert "running_mean" in nn.BatchNorm1d(2).state_dict() and not list(nn.BatchNorm1d(2).buffers())[0].requires_grad
    bn.eval()
    x1 = torch.randn(1, 3)
    assert torch.allclose(bn(x1), bn(torch.cat([x1, 100 * torch.randn(5, 3)]))[:1])  # bn-eval-independent


def test_batchnorm_momentum_conventions() -> None:
    mean, var = torch.zeros(1), torch.ones(1)
    _bn_train(torch.tensor([[9.0], [11.0]]), mean, var, 0.9)
    assert abs(mean.item() - 9.0) < 1e-6  # torch with 0.9: the new batch weighs 0.9
    keras = 0.9 * 0.0 + 0.1 * 10.0
    _bn_train(torch.tensor([[9.0], [11.0]]), m2 := torch.zeros(1), torch.ones(1), 0.1)
    assert abs(m2.item() - keras) < 1e-6


def test_layernorm_semantics() -> None:
    x = torch.randn(4, 6, dtype=D64)
    assert torch.allclose(F.layer_norm(x, (6,)), _ln(x))
    assert not torch.allclose(
        F.layer_norm(x, (6,)), (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True) + 1e-5)
    )
    ln = nn.LayerNorm((4, 5))
    assert tuple(ln.weight.shape) == (4, 5) and sum(p.numel() for p in ln.parameters()) == 40
    y = torch.randn(2, 3, 4, 5, dtype=D64)
    assert torch.allclose(F.layer_norm(y, (4, 5)), _ln(y.reshape(2, 3, 20)).reshape_as(y))
    z = torch.randn(3, 5, dtype=D64, requires_grad=True)
    F.layer_norm(z, (5,)).sum().backward()
    assert z.grad is not None and z.grad.abs().max() < 1e-10  # ln-sum-gradient-zero
    no_bias = nn.LayerNorm(8, bias=False)
    assert no_bias.bias is None and nn.LayerNorm(8, elementwise_affine=False).state_dict() == {}
    assert nn.LayerNorm(8).eps == 1e-5
    shifted = torch.randn(2, 8) + 5
    assert not torch.allclose(no_bias(shifted), F.rms_norm(shifted, (8,), eps=1e-5), atol=1e-3)


def test_one_pass_variance_loses_digits_at_mean_1000() -> None:
    x = torch.randn(32, 512, generator=torch.Generator().manual_seed(1)) + 1000
    one_pass = (x * x).mean(-1) - x.mean(-1) ** 2
    assert (one_pass.double() - x.double().var(-1, unbiased=False)).abs().max() > 0.05
    assert np.spacing(np.float32(1e6)) == 0.0625


def test_scale_and_shift_invariances() -> None:
    x = torch.randn(1, 16, dtype=D64)
    assert torch.allclose(_rms(3 * x, 0.0), _rms(x, 0.0)) and not torch.allclose(_rms(x + 2, 0.0), _rms(x, 0.0))
    assert torch.allclose(_ln(4 * x + 1, 0.0), _ln(x, 0.0)) and torch.allclose(_ln(-x, 0.0), -_ln(x, 0.0))
    w = torch.randn(16, 8, dtype=D64)
    assert torch.allclose(_ln(x @ (5 * w), 0.0), _ln(x @ w, 0.0))


def test_rmsnorm_output_bound_and_constant_row() -> None:
    d = 1024
    spike = torch.zeros(1, d, dtype=D64)
    spike[0, 3] = 7.0
    assert abs(_rms(spike, 0.0).max().item() - math.sqrt(d)) < 1e-9
    row = torch.full((1, 8), 5.0)
    assert torch.all(F.layer_norm(row, (8,)) == 0) and torch.allclose(_rms(row), torch.ones(1, 8), atol=1e-5)


def test_mixed_dtype_promotion_and_hf_gemma_quirks() -> None:
    x = torch.randn(2, 8).bfloat16()
    assert (_rms(x.float()).type_as(x) * torch.ones(8)).dtype == torch.float32
    assert (_rms(x.float()).type_as(x) * torch.ones(8, dtype=torch.bfloat16)).dtype == torch.bfloat16
    module = nn.Module()
    setattr(module, "eps", 1e-5)  # noqa: B010 - an attribute nobody reads: nn.Module accepts it silently
    ones = nn.RMSNorm(8).state_dict()["weight"]
    h = torch.randn(3, 8)
    assert torch.allclose(_rms(h, 1e-6) * (1 + ones), 2 * _rms(h, 1e-6))


def test_l2_norm_and_eps_placement() -> None:
    x = torch.randn(2, 512, dtype=D64)
    assert torch.allclose(x / x.norm(dim=-1, keepdim=True) * math.sqrt(512), _rms(x, 0.0))
    small = torch.randn(2, 64, dtype=D64) * 1e-3
    ratio = (small / (small.pow(2).mean(-1, keepdim=True).sqrt() + 1e-5)) / _rms(small)
    assert 2.5 < ratio.mean().item() < 4


def test_prenorm_wiring_and_counts() -> None:
    d = 8
    n1, n2 = nn.RMSNorm(d, eps=1e-5), nn.RMSNorm(d, eps=1e-5)
    f, g = nn.Linear(d, d), nn.Linear(d, d)
    x = torch.randn(3, d)
    h = x + f(n1(x))
    pre = h + g(n2(h))
    post = n2(x + f(x))
    assert not torch.allclose(pre, post)
    with torch.no_grad():
        n2.weight.mul_(torch.linspace(0.5, 1.5, d))
    assert not torch.allclose(h + g(n2(h)), h + g(n1(h)))  # pn-bug-one-norm shows once gains differ


def test_swamping_stalls_a_bf16_running_sum() -> None:
    total = torch.tensor(0.0, dtype=torch.bfloat16)
    for _ in range(2000):
        total = total + torch.tensor(1.0, dtype=torch.bfloat16)
    assert total.item() == 256.0  # stops at 256: 256 + 1 rounds back to 256


def test_loss_scaling_range() -> None:
    assert float(np.float16(1e-8)) == 0.0 and float(np.float16(1e-8 * 2**16)) > 0
    assert float(torch.tensor(1e-8, dtype=torch.bfloat16)) > 0
    assert torch.finfo(torch.bfloat16).tiny < 1.2e-38 * 1.01


def test_batchnorm_folds_into_the_linear_layer() -> None:
    lin = nn.Linear(5, 3).double()
    mean, var = torch.rand(3, dtype=D64) * 2 - 1, torch.rand(3, dtype=D64) + 0.5
    gamma, beta = torch.rand(3, dtype=D64) + 0.5, torch.randn(3, dtype=D64)
    x = torch.randn(4, 5, dtype=D64)
    with torch.no_grad():
        reference = F.batch_norm(lin(x), mean, var, gamma, beta, training=False, eps=1e-5)
        s = gamma / torch.sqrt(var + 1e-5)
        folded = x @ (lin.weight * s[:, None]).T + (lin.bias - mean) * s + beta
    assert torch.allclose(folded, reference)


# -- the topics added with the katas (backward, groupnorm, inference, qknorm, statistics) ----------


class _Scale(torch.autograd.Function):
    """A per-channel scale whose backward returns the weight gradient without reducing it."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * w.view(1, -1, 1)

    @staticmethod
    def backward(ctx, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        (x,) = ctx.saved_tensors
        return g, (g * x).sum(0)  # (C, L): summed over N only


def test_autograd_reduces_or_rejects_a_gradient_of_the_wrong_shape() -> None:
    with pytest.raises(RuntimeError, match="invalid gradient at index 1"):
        _Scale.apply(torch.randn(2, 3, 5), torch.randn(3, requires_grad=True)).sum().backward()  # C ≠ L
    w = torch.randn(4, requires_grad=True)
    x = torch.randn(2, 4, 4)
    _Scale.apply(x, w).sum().backward()  # C = L: accepted and summed over the wrong dimension
    assert w.grad is not None and not torch.allclose(w.grad, x.sum((0, 2)))
    assert torch.allclose(w.grad, x.sum((0, 1)))


def test_norm_backward_formulas_against_autograd() -> None:
    x = torch.randn(5, 7, dtype=D64, requires_grad=True)
    w, dy = torch.rand(7, dtype=D64) + 0.5, torch.randn(5, 7, dtype=D64)
    F.layer_norm(x, (7,), w, None, 0.1).backward(dy)
    xd = x.detach()
    r = 1 / torch.sqrt(xd.var(-1, unbiased=False, keepdim=True) + 0.1)
    xhat = (xd - xd.mean(-1, keepdim=True)) * r
    g = w * dy
    dx = r * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    assert x.grad is not None and torch.allclose(x.grad, dx)
    assert x.grad.sum(-1).abs().max() < 1e-12 and (x.grad * xhat).sum(-1).abs().max() > 1e-3  # eps breaks ⟂
    x.grad = None
    F.rms_norm(x, (7,), w, 1e-5).backward(dy)
    r = 1 / torch.sqrt(xd.pow(2).mean(-1, keepdim=True) + 1e-5)
    assert x.grad is not None and torch.allclose(x.grad, r * g - xd * r**3 * (xd * g).mean(-1, keepdim=True))


def test_groupnorm_semantics() -> None:
    x = torch.randn(2, 6, 3, 4, dtype=D64)
    flat = x.reshape(2, 3, -1)  # 3 groups of 2 consecutive channels
    manual = (flat - flat.mean(-1, keepdim=True)) / torch.sqrt(flat.var(-1, unbiased=False, keepdim=True) + 1e-5)
    assert torch.allclose(F.group_norm(x, 3), manual.reshape_as(x))
    strided = x.view(2, 2, 3, 3, 4)  # every 3rd channel in a group
    mean = strided.mean((1, 3, 4), keepdim=True)
    var = strided.var((1, 3, 4), unbiased=False, keepdim=True)
    assert not torch.allclose(((strided - mean) / torch.sqrt(var + 1e-5)).reshape_as(x), F.group_norm(x, 3))
    assert torch.allclose(F.group_norm(x, 6), F.instance_norm(x))
    with pytest.raises(ValueError):
        nn.GroupNorm(4, 6)
    assert not list(nn.GroupNorm(2, 4).buffers())


def test_fused_add_rmsnorm_precision_facts() -> None:
    gen = torch.Generator().manual_seed(2)
    bits = torch.randint(0, 2**16, (2, 50_000), generator=gen).to(torch.int16).view(torch.bfloat16)
    a, b = bits[0], bits[1]
    keep = (a.isfinite() & b.isfinite() & (a + b).isfinite()).nonzero().squeeze(1)
    a, b = a[keep], b[keep]
    assert torch.equal((a + b).view(torch.int16), (a.float() + b.float()).bfloat16().view(torch.int16))
    x = torch.full((1, 8), 40000.0, dtype=torch.float16)
    s = x.float() + torch.full((1, 8), 30000.0, dtype=torch.float16).float()
    assert s.half().isinf().all() and torch.allclose(_rms(s, 0.0), torch.ones(1, 8))
    f = torch.randn(2, 4)
    assert f.float() is f and f.to(torch.float32) is f  # why the in-place float32 path aliases


def test_qk_norm_facts() -> None:
    q = torch.randn(2, 5, 4, 8, dtype=D64)  # (B, T, heads, head_dim)
    assert torch.allclose(_rms(q, 0.0).transpose(1, 2), _rms(q.transpose(1, 2), 0.0))
    whole = _rms(q.reshape(2, 5, 32), 0.0).view(2, 5, 4, 8)
    assert not torch.allclose(whole, _rms(q, 0.0))  # OLMo 2's whole-projection norm differs
    assert torch.allclose(_rms(10 * q, 0.0), _rms(q, 0.0))
    assert torch.allclose(_rms(q / math.sqrt(8), 0.0), _rms(q, 0.0))  # a pre-scale is divided out


# -- placement, normfree (DyT), ngpt ----------------------------------------


def _dyt(x: torch.Tensor, alpha: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return torch.tanh(alpha * x) * weight + bias  # jiachenzhu/DyT dynamic_tanh.py, channels last


def test_dyt_facts() -> None:
    alpha, weight, bias = torch.ones(1) * 0.5, torch.ones(8), torch.zeros(8)
    x = torch.randn(4, 8)
    # float32 weight and bias promote a bf16 input whatever alpha's shape (a 0-dim alpha alone would not)
    assert _dyt(x.bfloat16(), alpha, weight, bias).dtype == torch.float32
    assert _dyt(x.bfloat16(), torch.tensor(0.5), weight, bias).dtype == torch.float32
    assert (torch.tensor(0.5) * x.bfloat16()).dtype == torch.bfloat16
    assert not torch.allclose(_dyt(10 * x, alpha, weight, bias), _dyt(x, alpha, weight, bias))  # no scale invariance
    assert float(_dyt(x, alpha, weight, torch.ones(8)).mean()) > 0.5  # bias at ones shifts every output
    assert float((torch.tanh(alpha * x * 5.0) + bias).abs().max()) <= 1.0  # weight inside tanh: bounded


def test_placement_facts() -> None:
    d = 16
    norm, f = nn.RMSNorm(d, eps=1e-6), nn.Linear(d, d)
    nn.init.normal_(norm.weight)
    x = torch.randn(5, d, dtype=torch.float32) * 3
    pre, post, olmo2 = x + f(norm(x)), norm(x + f(x)), x + norm(f(x))
    assert not torch.allclose(pre, olmo2) and not torch.allclose(post, olmo2)
    unit = nn.RMSNorm(d, eps=1e-6)
    assert torch.allclose(unit(1000 * f(x)).pow(2).mean(-1).sqrt(), torch.ones(5), atol=1e-4)  # bounded update
    ln = nn.LayerNorm(d, elementwise_affine=False)
    assert torch.allclose(ln(4 * x + f(x)), ln(x + f(x) / 4), atol=1e-5)  # DeepNorm's alpha shrinks the update


def test_ngpt_facts() -> None:
    def justnorm(t: torch.Tensor) -> torch.Tensor:
        return t / t.norm(p=2, dim=-1, keepdim=True)

    h, b = justnorm(torch.randn(4, 32, dtype=D64)), justnorm(torch.randn(4, 32, dtype=D64))
    chord = h + 0.3 * (b - h)
    assert bool((chord.norm(dim=-1) < 1).all())  # without the projection, the state leaves the sphere
    assert torch.allclose(justnorm(chord).norm(dim=-1), torch.ones(4, dtype=D64))


# -- the 2026 subjects: Pre-LN's one-sublayer test, RoPE and QK-norm, QK-Clip, FlashNorm --


def test_prenorm_scale_test_holds_for_one_sublayer_not_a_layer() -> None:
    d, c = 8, 3.0
    n1, n2 = nn.RMSNorm(d, eps=0.0).double(), nn.RMSNorm(d, eps=0.0).double()
    attn, mlp = nn.Linear(d, d).double(), nn.Linear(d, d).double()
    x = torch.randn(4, d, dtype=D64)
    with torch.no_grad():
        assert torch.allclose(attn(n1(c * x)), attn(n1(x)))  # one sublayer: the update is unchanged
        h, hc = x + attn(n1(x)), c * x + attn(n1(c * x))
        assert not torch.allclose(mlp(n2(hc)), mlp(n2(h)))  # the layer's second update is not


def _rope(t: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    """Interleaved-pair RoPE as a complex rotation (Llama 4's apply_rotary_emb), not the bank's rotate_half."""
    pairs = torch.view_as_complex(t.reshape(*t.shape[:-1], -1, 2).contiguous())
    freqs = 10000.0 ** (-torch.arange(pairs.shape[-1], dtype=D64) / pairs.shape[-1])
    return torch.view_as_real(pairs * torch.polar(torch.ones_like(freqs), pos[:, None] * freqs)).flatten(-2)


def test_rope_commutes_with_a_gain_free_norm_only() -> None:
    q, pos = torch.randn(6, 32, dtype=D64), torch.arange(6, dtype=D64)
    gain = torch.linspace(0.5, 1.5, 32, dtype=D64)
    assert torch.allclose(_rms(_rope(q, pos), 0.0), _rope(_rms(q, 0.0), pos))
    assert not torch.allclose(_rms(_rope(q, pos), 0.0) * gain, _rope(_rms(q, 0.0) * gain, pos))


def test_qk_clip_scales_every_logit_of_the_head_by_gamma() -> None:
    gamma = 100 / 250
    q_c, k_c, q_r, k_r = (torch.randn(4, 16, dtype=D64) for _ in range(4))
    before = q_c @ k_c.T + q_r @ k_r.T
    after = (q_c * gamma**0.5) @ (k_c * gamma**0.5).T + (q_r * gamma) @ k_r.T  # shared k_r untouched
    assert torch.allclose(after, gamma * before)


def test_flashnorm_fold_and_deferred_rstd() -> None:
    x = torch.randn(5, 12, dtype=D64) * 4
    g, w, b = torch.rand(12, dtype=D64) + 0.5, torch.randn(7, 12, dtype=D64), torch.randn(7, dtype=D64)
    reference = F.linear(F.rms_norm(x, (12,), g, 1e-6), w, b)
    rstd = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    assert torch.allclose(F.linear(x, w * g) * rstd + b, reference)
    assert not torch.allclose(F.linear(x, w * g, b) * rstd, reference)


def test_zero_centred_gain_and_gated_norm() -> None:
    x, z = torch.randn(3, 16, dtype=D64), torch.full((3, 16), 2.0, dtype=D64)
    assert torch.allclose(_rms(x, 1e-6) * (1 + torch.zeros(16, dtype=D64)), _rms(x, 1e-6))
    # norm before gate (Qwen3-Next) scales with silu(z); gate before norm divides a uniform gate out
    assert torch.allclose(_rms(x, 0.0) * F.silu(z), _rms(x, 0.0) * F.silu(torch.tensor(2.0, dtype=D64)))
    assert torch.allclose(_rms(x * F.silu(z), 0.0), _rms(x, 0.0))
