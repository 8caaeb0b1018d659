"""The inputs a suite draws, from the run's seed, and what a precision can deliver on them.

A suite cannot be memorised (inputs change with the seed) and `--seed` reproduces a run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from normkata.grading.checks.context import RUN, say
from normkata.grading.contract import PERTURBATION_DRAWS, dtype_name

#: Every case that takes a device runs on both; the plugin skips CUDA where there is none.
DEVICES = ["cpu", "cuda"]


def seeded(key: int) -> torch.Generator:
    """A generator for one input of the suite: the run's seed and the input's own key."""
    return torch.Generator().manual_seed((RUN.seed * 1_000_003 + key) % (2**63))


def randn(shape: Sequence[int], key: int, *, scale: float = 1.0, shift: float = 0.0) -> torch.Tensor:
    return torch.randn(*shape, generator=seeded(key)) * scale + shift


def draw(key: int, low: int, high: int) -> int:
    """A whole number in [low, high], drawn from the run's seed."""
    return int(torch.randint(low, high + 1, (1,), generator=seeded(key)).item())


def rounding_unit(dtype: torch.dtype) -> float:
    """The relative rounding of the precision correct code computes in for inputs of `dtype`:
    float64's for float64, float32's otherwise (half-precision inputs are computed in float32)."""
    return 2.0**-53 if dtype == torch.float64 else 2.0**-24


def _max_error(got: torch.Tensor, truth: torch.Tensor) -> float:
    """The largest finite |got − truth| (a non-finite truth or result widens nothing)."""
    if tuple(got.shape) != tuple(truth.shape) or got.numel() == 0:
        return 0.0
    error = (got.detach().double().cpu() - truth.detach().double().cpu()).abs()
    error = error[torch.isfinite(error)]
    return float(error.max()) if error.numel() else 0.0


def own_errors(
    truth: Callable[[list[torch.Tensor]], Sequence[torch.Tensor]],
    inputs: Sequence[torch.Tensor],
    expected: Sequence[torch.Tensor],
    in_dtype: Sequence[torch.Tensor] = (),
) -> list[float]:
    """Per expected tensor, how far the case's own precision lands from it on these inputs
    (contract.ACHIEVABLE_FACTOR): the error of `in_dtype` (the truth computed in the case's dtype,
    where the suite gives it) and of `truth` (float64) on the inputs moved by one rounding."""
    worst = [
        _max_error(own, want) if own is not None else 0.0
        for own, want in zip([*in_dtype, *[None] * len(expected)], expected, strict=False)
    ]
    unit = rounding_unit(inputs[0].dtype)
    generator = torch.Generator().manual_seed(RUN.seed)
    for _ in range(PERTURBATION_DRAWS):
        moved = [
            t.detach().double().cpu()
            * (1 + unit * (torch.rand(t.shape, generator=generator, dtype=torch.float64) * 2 - 1))
            if t.is_floating_point()
            else t
            for t in inputs
        ]
        for index, (got, want) in enumerate(zip(truth(moved), expected, strict=True)):
            worst[index] = max(worst[index], _max_error(got, want))
    return worst


def shape_id(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape))


@dataclass
class Input:
    """A tensor with the words that describe it to the learner."""

    tensor: torch.Tensor
    label: str

    def describe(self, device: str = "cpu") -> str:
        shape, dtype = tuple(self.tensor.shape), dtype_name(self.tensor.dtype)
        return say(
            "{label} input of shape {shape}, {dtype} on {device}",
            "{label} 输入，形状 {shape}，{dtype}，设备 {device}",
            label=self.label,
            shape=shape,
            dtype=dtype,
            device=device,
        )
