"""Autograd Functions with a hand-written backward: one call, forward then backward, checked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import torch

from normkata.content.names import shared_misconception
from normkata.grading.checks.context import RUN, say
from normkata.grading.checks.harness import ErrorSuspect, Harness, at, once
from normkata.grading.checks.inputs import Input, own_errors
from normkata.grading.checks.wording import Misconception, call_on, fail, value_text
from normkata.grading.contract import TOLERANCES, tolerance_for
from normkata.grading.messages import Failure, Program, ProgramKind, Step, StepReply

#: Worded in katas/shared.yaml, as every misconception a shared check names.
AUTOGRAD_IN_BACKWARD = shared_misconception("autograd-in-backward")


@dataclass
class FunctionCall:
    """`cls.apply(*tensors, *extra.values())` on one input, as a suite sends it and the learner reads it."""

    cls: str
    names: Sequence[str]  # the tensors' names, in order: x, weight, bias
    tensors: Sequence[torch.Tensor]
    extra: dict[str, Any]  # plain arguments after the tensors, passed by position: eps
    label: str  # what the input x is, for the learner: "N(0,1)", "small-variance (1e-3·N(0,1))"

    def text(self) -> str:
        """`RMSNormFunction.apply(x, weight, eps=1e-05)`."""
        parts = [*self.names, *(f"{k}={value_text(v)}" for k, v in self.extra.items())]
        return f"{self.cls}.apply({', '.join(parts)})"

    def program(self, harness: Harness, grad_output: torch.Tensor | None) -> Program:
        step = Step(
            list(self.tensors),
            input_grad=grad_output is not None,
            grad_output=grad_output,
            extra=list(self.extra.values()),
        )
        return Program(self.cls, [], {}, device=harness.device, steps=[step], seed=RUN.seed, kind=ProgramKind.FUNCTION)

    def run(
        self, harness: Harness, grad_output: torch.Tensor | None, error_suspects: Sequence[ErrorSuspect] = ()
    ) -> StepReply:
        return harness.submit(self.program(harness, grad_output), self.text(), error_suspects).steps[0]


Suspects = Sequence[tuple[Misconception, torch.Tensor]]


def backward_case(
    harness: Harness,
    call: FunctionCall,
    *,
    grad_output: torch.Tensor,
    expected: Sequence[torch.Tensor],
    suspects: Sequence[Suspects] = (),
    error_suspects: Sequence[ErrorSuspect] = (),
    truth: Callable[[list[torch.Tensor]], Sequence[torch.Tensor]] | None = None,
) -> StepReply:
    """Forward, then backward with `grad_output`: the output and the gradient of every tensor.

    `expected` is the output then one gradient per tensor (float64); `suspects` lines up with it.
    Outputs use the input dtype's tolerance, gradients the gradient tolerance (float64's in float64),
    never tighter than what the case's precision delivers on this input (`own_errors`), when the
    suite gives `truth`: [*tensors, grad_output] → the same output and gradients, computed in the
    tensors' dtype (torch's own norm and its autograd).
    """
    got = call.run(harness, grad_output, error_suspects)
    dtype = call.tensors[0].dtype
    inputs = [*call.tensors, grad_output]
    errors = once(
        lambda: (
            own_errors(truth, inputs, expected, truth(list(inputs)) if dtype == torch.float32 else [])
            if truth is not None
            else [0.0] * len(expected)
        )
    )
    on = Input(call.tensors[0], call.label).describe(harness.device)
    found = [*suspects, *([()] * (len(expected) - len(suspects)))]
    if not got.outputs:
        fail(
            say(
                "{call} on {on}: forward returned nothing", "{call}，{on}：forward 没有返回值", call=call.text(), on=on
            ),
            call=call_on(call.text(), on),
        )
    harness.assert_close(
        got.output,
        expected[0],
        tol=tolerance_for(dtype),
        own_error=lambda: errors()[0],
        call=call.text(),
        on=on,
        suspects=found[0],
    )
    tol = TOLERANCES["float64" if dtype == torch.float64 else "gradient"]
    backward = say("{call}, then backward", "{call} 之后反向传播", call=call.text())
    # The shape of what backward returned, read here off the tensor that came back (a Tensor
    # subclass can say another shape in the worker; autograd sums a gradient that broadcasts).
    for name, tensor, returned in zip(call.names, call.tensors, got.backward_returned, strict=False):
        shape = None if returned is None else list(returned.shape)
        if shape is not None and shape != list(tensor.shape):
            fail(
                say(
                    "{call} on {on}: backward returned the gradient of {name} with shape {got}, expected {want}, "
                    "the shape of {name} (autograd would sum it for you, but the instructions ask backward for it: "
                    "sum over every dimension {name} does not have)",
                    "{call}，{on}：backward 返回的 {name} 的梯度形状为 {got}，应为 {want}，即 {name} 的形状"
                    "（autograd 会替你求和，但题目要求 backward 自己给出：在 {name} 没有的维度上求和）",
                    call=backward,
                    on=on,
                    name=name,
                    got=tuple(shape),
                    want=tuple(tensor.shape),
                ),
                call=call_on(backward, on),
            )
    for index, name in enumerate(call.names):
        grad = got.input_grads[index] if index < len(got.input_grads) else None
        if grad is None:
            fail(
                say(
                    "{call} on {on}: no gradient for {name} (did backward return None in its place?)",
                    "{call}，{on}：{name} 没有得到梯度（backward 是否在它的位置返回了 None？）",
                    call=backward,
                    on=on,
                    name=name,
                ),
                call=call_on(backward, on),
            )
        what = say("gradient of {name}", "{name} 的梯度", name=name)
        harness.assert_close(
            grad,
            expected[index + 1],
            tol=tol,
            own_error=partial(at, errors, index + 1),
            call=backward,
            on=on,
            what=what,
            suspects=found[index + 1],
        )
    return got


def expect_no_autograd(harness: Harness, call: FunctionCall, got: StepReply) -> None:
    """Fail, naming the mistake, when the learner's backward used autograd (what the worker saw)."""
    if got.autograd_in_backward:
        fail(
            say(
                "{call}: the gradient did not come from backward's own formula alone ({found}); this kata asks "
                "for the gradients written out in backward. ",
                "{call}：梯度并非只来自 backward 自己的公式（{found}）；本练习要求在 backward 中手写出梯度。",
                call=call.text(),
                found=", ".join(got.autograd_in_backward),
            )
            + harness.diagnose(AUTOGRAD_IN_BACKWARD),
            call=call.text(),
        )


def invalid_gradient(index: int) -> Callable[[Failure], bool]:
    """Matches autograd's refusal of a gradient whose shape does not fit input `index`."""
    return lambda failure: f"returned an invalid gradient at index {index}" in failure.message
