"""Cases several suites share, written once: a suite passes its own `check` and inputs.

A battery returns test functions by name; the suite puts them among its own, where they are
collected like its own (`globals().update(...)`: pytest collects a module's tests in the order
its namespace holds them, so the report lists the cases as before).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest
import torch

from normkata.grading.checks.context import say
from normkata.grading.checks.harness import Harness
from normkata.grading.checks.inputs import DEVICES, Input, draw, randn, shape_id
from normkata.grading.contract import Category

#: A backward suite's own check: `check(harness, x, label, *, key, eps=1e-5)`.
Check = Callable[..., None]
Cases = dict[str, Callable[..., None]]

#: The float32 gradient shapes of the last-dimension backward katas.
LAST_DIM_SHAPES = [(4, 16), (2, 5, 8), (3, 7)]


@dataclass(frozen=True)
class Noise:
    """An input drawn as scale·N(0,1) + shift, with the words that describe it to the learner."""

    label: str
    scale: float = 1.0
    shift: float = 0.0

    def draw(self, shape: Sequence[int], key: int) -> torch.Tensor:
        return randn(shape, key, scale=self.scale, shift=self.shift)


def forward_cases(check_forward: Check, shapes: Sequence[tuple[int, ...]]) -> Cases:
    """Forward in float32 on every device, on 2·N(0,1)+0.5 inputs of each shape; a norm over the
    last dimension: `check_forward(harness, x, d, key=...)` draws its parameters from `key`."""

    @pytest.mark.category(Category.FORWARD)
    @pytest.mark.parametrize("device", DEVICES)
    @pytest.mark.parametrize("shape", shapes, ids=shape_id)
    def test_forward(harness: Harness, shape: tuple[int, ...], device: str) -> None:
        key = 1000 + sum(shape) * 7 + len(shape)
        check_forward(harness, Input(randn(shape, key, scale=2.0, shift=0.5), "2·N(0,1)+0.5"), shape[-1], key=key + 1)

    return {"test_forward": test_forward}


def drawn_forward_cases(check_forward: Check, min_d: int) -> Cases:
    """Forward in float32 on three shapes drawn from the run's seed (d from `min_d` to 97), on
    1.5·N(0,1)-0.5 inputs."""

    @pytest.mark.category(Category.FORWARD)
    @pytest.mark.parametrize("k", range(3))
    def test_forward_drawn_shapes(harness: Harness, k: int) -> None:
        shape = (draw(10 + k, 1, 5), draw(20 + k, 1, 6), draw(30 + k, min_d, 97))
        check_forward(
            harness, Input(randn(shape, 40 + k, scale=1.5, shift=-0.5), "1.5·N(0,1)-0.5"), shape[-1], key=50 + k
        )

    return {"test_forward_drawn_shapes": test_forward_drawn_shapes}


def gradient_cases(check: Check, shapes: Sequence[tuple[int, ...]]) -> Cases:
    """Forward and backward on every device, on 1.5·N(0,1)+0.3 inputs of each shape."""

    @pytest.mark.category(Category.GRADIENTS)
    @pytest.mark.parametrize("device", DEVICES)
    @pytest.mark.parametrize("shape", shapes, ids=shape_id)
    def test_gradients(harness: Harness, shape: tuple[int, ...], device: str) -> None:
        key = 1000 + sum(shape) * 7 + len(shape)
        check(harness, randn(shape, key, scale=1.5, shift=0.3), "1.5·N(0,1)+0.3", key=key)

    return {"test_gradients": test_gradients}


def last_dim_backward_cases(check: Check, *, drawn: Noise, float64: Noise) -> Cases:
    """What every backward kata that normalizes over the last dimension is graded on, up to its
    own stability cases: shapes in float32 (fixed, drawn, tiny and 4-D), float64, small variance."""

    @pytest.mark.category(Category.GRADIENTS)
    @pytest.mark.parametrize("k", range(4))
    def test_gradients_drawn_shapes(harness: Harness, k: int) -> None:
        shape = (draw(10 + k, 1, 5), draw(20 + k, 1, 6), draw(30 + k, 2, 64))
        check(harness, drawn.draw(shape, 40 + k), drawn.label, key=50 + 10 * k)

    @pytest.mark.category(Category.SHAPES)
    @pytest.mark.parametrize("d", [1, 2, 3, 5])
    def test_small_hidden_sizes(harness: Harness, d: int) -> None:
        check(harness, randn((4, d), 100 + d), "N(0,1)", key=110 + 10 * d)

    @pytest.mark.category(Category.SHAPES)
    def test_four_dimensional_input(harness: Harness) -> None:
        check(harness, randn((2, 2, 3, 9), 200), "N(0,1)", key=201)

    @pytest.mark.category(Category.FLOAT64)
    @pytest.mark.parametrize("shape", [(3, 17), (2, 4, 6)], ids=shape_id)
    def test_float64(harness: Harness, shape: tuple[int, ...]) -> None:
        key = 300 + sum(shape)
        check(harness, float64.draw(shape, key).double(), float64.label, key=key)

    @pytest.mark.category(Category.STABILITY)
    @pytest.mark.parametrize("device", DEVICES)
    def test_small_variance_rows(harness: Harness, device: str) -> None:
        check(
            harness,
            randn((4, 32), 400, scale=1e-3),
            say("small-variance (1e-3·N(0,1))", "小方差（1e-3·N(0,1)）"),
            key=401,
        )

    cases = gradient_cases(check, LAST_DIM_SHAPES)
    for test in (
        test_gradients_drawn_shapes,
        test_small_hidden_sizes,
        test_four_dimensional_input,
        test_float64,
        test_small_variance_rows,
    ):
        cases[test.__name__] = test
    return cases


def large_input_cases(check: Check) -> Cases:
    """A large eps on a small input, and large values: where a formula's eps and scale show."""

    @pytest.mark.category(Category.STABILITY)
    def test_large_eps(harness: Harness) -> None:
        check(harness, randn((5, 9), 420, scale=0.05), "0.05·N(0,1)", key=421, eps=1e-2)

    @pytest.mark.category(Category.STABILITY)
    def test_large_values(harness: Harness) -> None:
        check(harness, randn((3, 24), 430, scale=1e3), say("large (1e3·N(0,1))", "大数值（1e3·N(0,1)）"), key=431)

    return {"test_large_eps": test_large_eps, "test_large_values": test_large_values}
