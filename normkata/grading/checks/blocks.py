"""Transformer blocks on the prenorm kata's attention and feed-forward (prenorm, sandwich_block):
a block and its stack, checked against the reference loaded with the same random weights.

A suite states what is its own (class names, where its norms sit, its mistakes' variants) in a
`BlockKata`; the forward check, the eps that does not reach a norm, and the structure check are
the same for every such kata.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from normkata.grading.checks.context import say
from normkata.grading.checks.harness import Harness
from normkata.grading.checks.inputs import Input, seeded
from normkata.grading.checks.state import expect_contains, expect_keys
from normkata.grading.checks.wording import Misconception, call_text, fail
from normkata.grading.contract import TOLERANCES, Tolerance
from normkata.grading.messages import Inspection

TOLERANCE_NAMES = {torch.float32: "block float32", torch.bfloat16: "block bfloat16", torch.float16: "block float16"}
#: eps values a norm ends up with when the given eps does not reach it: a hard-coded 1e-5 or
#: 1e-6, nn.RMSNorm's own default (float32's machine epsilon; nn.LayerNorm's is 1e-5), a
#: hand-written norm's default of 1e-8, or none at all (a norm that drops eps from its formula).
NOT_PASSED_EPS = (1e-5, 1e-6, torch.finfo(torch.float32).eps, 1e-8, 0.0)

Variant = Callable[[torch.Tensor], torch.Tensor]
State = dict[str, torch.Tensor]


def block_reference(kata_id: str) -> Callable[[str, list[Any], dict[str, Any]], nn.Module]:
    """The kata's reference classes by name (the runner makes its solution importable as
    `normkata_reference_<id>`)."""

    def reference_module(cls: str, args: list[Any], kwargs: dict[str, Any]) -> nn.Module:
        return getattr(importlib.import_module(f"normkata_reference_{kata_id}"), cls)(*args, **kwargs)

    return reference_module


def random_block_state(is_gain: Callable[[str], bool]) -> Callable[[nn.Module, int], State]:
    """Random weights everywhere, drawn from the run's seed: norm gains near 1, the rest near 0."""

    def random_state(module: nn.Module, key: int) -> State:
        generator = seeded(key)
        state = {}
        for name, value in module.state_dict().items():
            noise = torch.randn(value.shape, generator=generator)
            state[name] = 1.0 + 0.5 * noise if is_gain(name) else 0.3 * noise
        return state

    return random_state


def float64_reference(
    reference_module: Callable[[str, list[Any], dict[str, Any]], nn.Module],
    cls: str,
    args: list[Any],
    kwargs: dict[str, Any],
    state: State,
) -> nn.Module:
    """The reference in float64 with `state` (already quantised to the case's dtype) loaded."""
    module = reference_module(cls, args, kwargs)
    module.load_state_dict(state)
    return module.double()


@dataclass(frozen=True)
class BlockKata:
    """What a block kata's suite states; `check` and `check_structure` are its cases' bodies."""

    block: str  # the block's class: "PreNormBlock"
    stack: str  # the stack's class: "PreNormTransformer"
    block_args: list[Any]
    stack_prefix: str  # where the stack keeps its blocks in state_dict: "blocks."
    final_prefix: str  # the stack's own final norm in state_dict: "final"
    default_eps: float  # the constructors' default eps
    eps_not_passed: Misconception
    reference_module: Callable[[str, list[Any], dict[str, Any]], nn.Module]
    random_state: Callable[[nn.Module, int], State]
    build: Callable[[str, list[Any], dict[str, Any], State], nn.Module]  # float64, `state` loaded
    with_eps: Callable[[nn.Module, float | None, float | None], nn.Module]  # (blocks' eps, final norm's)
    variants: Callable[[str, nn.Module], Iterable[tuple[Misconception, Variant]]]  # (class, reference)
    #: One reference module per constructor call, read for its state_dict's names and shapes only.
    _templates: dict[str, nn.Module] = field(default_factory=dict, compare=False, repr=False)

    def template(self, cls: str, args: list[Any], kwargs: dict[str, Any]) -> nn.Module:
        """The reference `cls(*args, **kwargs)`, built once per grade: what its state_dict holds.
        Never run nor changed (a case that loads weights builds its own)."""
        key = f"{cls}{args!r}{sorted(kwargs.items())!r}"
        if key not in self._templates:
            self._templates[key] = self.reference_module(cls, args, kwargs)
        return self._templates[key]

    def eps_variants(
        self, cls: str, args: list[Any], kwargs: dict[str, Any], state: State, x: torch.Tensor
    ) -> list[tuple[Misconception, torch.Tensor]]:
        """The output when the given eps misses the blocks' norms, the final norm, or both."""
        given = kwargs.get("eps", self.default_eps)
        choices: list[float | None] = [None, *(e for e in NOT_PASSED_EPS if e != given)]
        found = []
        for blocks_eps in choices:
            for final_eps in choices if cls == self.stack else [None]:
                if blocks_eps is None and final_eps is None:
                    continue
                module = self.with_eps(self.build(cls, args, kwargs, state), blocks_eps, final_eps)
                with torch.no_grad():
                    found.append((self.eps_not_passed, module(x.double().cpu())))
        return found

    def check(
        self,
        harness: Harness,
        cls: str,
        args: list[Any],
        kwargs: dict[str, Any],
        x: Input,
        *,
        key: int,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        state = self.random_state(self.template(cls, args, kwargs), key)

        def expected(x_in: torch.Tensor, quantised: State) -> torch.Tensor:
            with torch.no_grad():
                return self.build(cls, args, kwargs, quantised)(x_in.double().cpu())

        def suspects(x_in: torch.Tensor, quantised: State) -> list[tuple[Misconception, torch.Tensor]]:
            module = self.build(cls, args, kwargs, quantised)
            with torch.no_grad():
                found = [(m, fn(x_in.double().cpu())) for m, fn in self.variants(cls, module)]
            return found + self.eps_variants(cls, args, kwargs, quantised, x_in)

        tol = TOLERANCES[TOLERANCE_NAMES[dtype]]
        if dtype != torch.float32:
            # Matmuls and softmax round at every step in half precision: never hold the learner to
            # more than the reference itself achieves in that dtype (twice its own error).
            low = self.reference_module(cls, args, kwargs)
            low.load_state_dict({k: v.to(dtype) for k, v in state.items()})
            quantised = {k: v.to(dtype) for k, v in state.items()}
            with torch.no_grad():
                own_error = (low.to(dtype)(x.tensor).double() - expected(x.tensor, quantised)).abs().max().item()
            tol = tol.at_least(Tolerance(tol.rtol, 2 * own_error))
        harness.forward_case(
            cls,
            args,
            kwargs,
            x,
            state=state,
            dtype=None if dtype == torch.float32 else dtype,
            tol=tol,
            expected=expected,
            suspects=suspects,
        )

    def structure(
        self, harness: Harness, cls: str, args: list[Any], kwargs: dict[str, Any]
    ) -> tuple[Inspection, list[str]]:
        """The learner's module with the reference's weights loaded where they fit: (inspection, mismatched names)."""
        reference = self.template(cls, args, kwargs)
        reply = harness.run(harness.program(cls, args, kwargs, state=self.random_state(reference, 1), inspect=True))
        assert reply.inspect is not None
        return reply.inspect, reply.state_load.mismatched

    def check_structure(
        self, harness: Harness, cls: str, args: list[Any], kwargs: dict[str, Any], children: list[str]
    ) -> None:
        """Named submodules present (extra ones are the learner's business), state_dict names fixed.

        The stack is judged on what is its own (how many blocks, under which names, its final
        norm): a naming or shape problem inside the block is the block case's finding, reported once.
        """
        call = call_text(cls, args, kwargs, None)
        info, mismatched = self.structure(harness, cls, args, kwargs)
        expect_contains(call, say("submodules", "子模块"), list(info.children), children)
        expected = list(self.template(cls, args, kwargs).state_dict())
        if cls == self.stack:
            block, block_mismatched = self.structure(harness, self.block, self.block_args, kwargs)
            n_layers = args[0]
            own = [k for k in expected if not k.startswith(self.stack_prefix)]
            expected = [f"{self.stack_prefix}{i}.{k}" for i in range(n_layers) for k in block.state_dict] + own
            final = self.final_prefix
            mismatched = [k for k in mismatched if k.split(".", 2)[-1] not in block_mismatched or k.startswith(final)]
        expect_keys(call, "state_dict", info.state_dict, expected)
        if mismatched:
            fail(
                say(
                    "{call}: the reference's weights do not fit {names} (different shapes). Fix: keep the given "
                    "CausalSelfAttention and FeedForward as they are, pass d_model, n_heads and d_ff through "
                    "unchanged and give each norm d_model features.",
                    "{call}：参考实现的权重放不进 {names}（形状不同）。修改：保持提供的 CausalSelfAttention 和 "
                    "FeedForward 不变，原样传递 d_model、n_heads 和 d_ff，每个归一化层的大小都是 d_model。",
                    call=call,
                    names=", ".join(f"`{n}`" for n in mismatched),
                ),
                call=call,
            )
