"""Programs for autograd Functions and plain objects, through a real worker process.

One worker serves every test here (starting one costs a torch import); each test sends the
Programs a suite would send and reads the checked replies.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from normkata.grading.messages import LoadRequest, Program, ProgramKind, Step
from normkata.grading.proxy import Submission
from normkata.grading.worker.calls import GRAD_FN, GRAD_MODE

LEARNER = textwrap.dedent('''
    import torch


    class Scale(torch.autograd.Function):
        """y = x * w * k, with w of shape (d,) broadcast over the rows of x."""

        @staticmethod
        def forward(ctx, x, w, k):
            ctx.save_for_backward(x, w)
            ctx.k = k
            return x * w * k

        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            return grad * w * ctx.k, (grad * x * ctx.k).sum(0), None


    class ScaleByAutograd(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, k):
            ctx.save_for_backward(x, w)
            ctx.k = k
            return x * w * k

        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            with torch.enable_grad():
                x, w = x.detach().requires_grad_(), w.detach().requires_grad_()
                y = x * w * ctx.k
                dx, dw = torch.autograd.grad(y, (x, w), grad, create_graph=True)
            return dx, dw, None


    class Counter:
        def __init__(self, width):
            self.total = torch.zeros(width, dtype=torch.float64)
            self.n = 0

        def update(self, batch):
            self.total += batch.double().sum(0)
            self.n += batch.shape[0]

        def merge(self, other):
            self.total += other.total
            self.n += other.n

        @property
        def mean(self):
            return self.total / self.n

        def count(self, scale=1):
            return self.n * scale

        def describe(self):
            return "a counter"
''')


@pytest.fixture(scope="module")
def submission(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Submission]:
    folder = tmp_path_factory.mktemp("learner")
    file = folder / "calls_learner.py"
    file.write_text(LEARNER, encoding="utf-8")
    classes = ["Scale", "ScaleByAutograd", "Counter"]
    made = Submission(LoadRequest(str(file), classes, [], [str(folder)]), [Path(folder.parent / "none")], 20.0, 120.0)
    assert made.load().ok
    yield made
    made.close()


def function_step(x: torch.Tensor, w: torch.Tensor, grad: torch.Tensor) -> Step:
    return Step([x, w], input_grad=True, grad_output=grad, extra=[3.0])


def test_function_backward_gives_the_hand_written_gradients(submission: Submission) -> None:
    x, w, grad = torch.randn(4, 5), torch.randn(5), torch.randn(4, 5)
    reply = submission.run(Program("Scale", [], {}, kind=ProgramKind.FUNCTION, steps=[function_step(x, w, grad)]))
    assert reply.ok, reply.failure
    step = reply.steps[0]
    assert torch.allclose(step.output, x * w * 3.0)
    dx, dw = step.input_grads
    assert dx is not None and dw is not None
    assert torch.allclose(dx, grad * w * 3.0) and torch.allclose(dw, (grad * x * 3.0).sum(0))
    assert step.autograd_in_backward == []


def test_autograd_inside_backward_is_reported(submission: Submission) -> None:
    x, w, grad = torch.randn(3, 2), torch.randn(2), torch.randn(3, 2)
    program = Program("ScaleByAutograd", [], {}, kind=ProgramKind.FUNCTION, steps=[function_step(x, w, grad)] * 2)
    reply = submission.run(program)
    assert reply.ok, reply.failure
    for step in reply.steps:  # reported for each backward, not only the first
        assert {"torch.autograd.grad", GRAD_MODE, GRAD_FN} <= set(step.autograd_in_backward)
        assert step.input_grads[0] is not None and torch.allclose(step.input_grads[0], grad * w * 3.0)
    # The watch is gone after the program: the same Function runs unwatched in the next one.
    again = submission.run(
        Program("ScaleByAutograd", [], {}, kind=ProgramKind.FUNCTION, steps=[Step([x, w], extra=[1.0])])
    )
    assert again.ok and again.steps[0].autograd_in_backward == []


def test_object_steps_update_merge_and_read_attributes(submission: Submission) -> None:
    a, b, c = torch.randn(6, 3), torch.randn(2, 3), torch.randn(5, 3)
    steps = [
        Step([a], method="update"),
        Step([], method="merge", other=[Step([b], method="update"), Step([c], method="update")]),
        Step([], attribute="mean"),
        Step([], method="count", call_kwargs={"scale": 2}),
    ]
    reply = submission.run(Program("Counter", [3], {}, kind=ProgramKind.OBJECT, steps=steps))
    assert reply.ok, reply.failure
    assert reply.steps[0].outputs == [] and reply.steps[1].outputs == []
    mean = reply.steps[2].output
    assert torch.allclose(mean, torch.cat([a, b, c]).double().mean(0))
    count = reply.steps[3].output
    assert count.dtype == torch.float64 and count.dim() == 0 and count.item() == 26.0


@pytest.mark.parametrize(
    "step", [Step([], method="describe"), Step([], attribute="update")], ids=["text", "bound-method"]
)
def test_a_result_that_is_not_tensors_is_a_type_error(submission: Submission, step: Step) -> None:
    reply = submission.run(Program("Counter", [2], {}, kind=ProgramKind.OBJECT, steps=[step]))
    assert not reply.ok and reply.failure is not None
    assert reply.failure.error == "TypeError"
    assert "expected a torch.Tensor, a tuple of tensors, a number or None" in reply.failure.message
    assert f"Counter.{step.method or step.attribute} returned" in reply.failure.message


def test_a_function_program_needs_a_function_class(submission: Submission) -> None:
    reply = submission.run(Program("Counter", [2], {}, kind=ProgramKind.FUNCTION, steps=[]))
    assert not reply.ok and reply.failure is not None
    assert "Counter is not a torch.autograd.Function subclass" in reply.failure.message
