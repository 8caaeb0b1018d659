"""The harness: one grading session's view of the submission, and the whole cases of a suite.

Every program reaches the learner's code through `Harness.submit`: a broken worker, an exception
in the learner's code and a known mistake behind that exception are told the same way for
modules, plain objects and autograd Functions.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

import torch

from normkata.content.names import shared_misconception
from normkata.grading.checks.context import RUN, say
from normkata.grading.checks.inputs import Input, own_errors, randn
from normkata.grading.checks.wording import LearnerError, Misconception, call_on, call_text, explanation, fail
from normkata.grading.contract import TOLERANCES, Tolerance, achievable, dtype_name, tolerance_for
from normkata.grading.messages import (
    Failure,
    Inspection,
    Launch,
    Program,
    ProgramKind,
    RunReply,
    StateLoad,
    Step,
    StepReply,
)
from normkata.grading.proxy import Submission, SubmissionError, TimeBudgetUsed

_T = TypeVar("_T")
#: Mistaken variants of the truth, each with the misconception it stands for.
Suspected = Sequence[tuple[Misconception, torch.Tensor]]

#: Something the learner's code may raise, and the misconception it reveals.
ErrorSuspect = tuple[Misconception, Callable[[Failure], bool]]

#: Worded in katas/shared.yaml.
STATEFUL = shared_misconception("stateful-forward")


@dataclass
class Observed:
    """A program's reply as the suites read it: the worker's tensors (`steps`) and what the runner
    derives from them itself (docs/grading.md, "Where each scored fact comes from"): the module's
    structure, and what loading the program's state could not match."""

    steps: list[StepReply]
    inspect: Inspection | None
    program: Program

    @property
    def state_load(self) -> StateLoad:
        """What torch's load_state_dict would not have matched (the program needs `state` and `inspect`)."""
        if self.program.state is None or self.inspect is None:
            raise TypeError("state_load needs a program with state= and inspect=True")
        return StateLoad.derive(self.program.state, self.inspect)


@dataclass
class Harness:
    """One grading session's view of the submission and the diagnoses."""

    submission: Submission
    device: str
    record: Callable[[Misconception], None]
    structure: list[str] = field(default_factory=list)

    def begin(self, program: Program) -> None:
        """Send `program` now and read its reply later (`run(..., sent=True)`): the worker runs the
        learner's code on its core while the suite computes the truth on this one."""
        self.submission.begin(program)

    def send(self, program: Program, call: str) -> RunReply:
        """The reply to `program`; a worker that broke (crash, hang, budget) is the learner's error."""
        self.submission.begin(program)
        return self.collect(call)

    def collect(self, call: str) -> RunReply:
        """The reply to the program sent last (`submission.begin`), read as `send` reads it."""
        try:
            return self.submission.collect()
        except TimeBudgetUsed:
            raise
        except SubmissionError as exc:
            raise LearnerError(f"{call}: {exc.text(RUN.lang)}", exc.cause, call=call) from None

    def submit(
        self, program: Program, call: str, error_suspects: Sequence[ErrorSuspect] = (), *, sent: bool = False
    ) -> Observed:
        """The reply to `program`, which must have run: what the learner's code raised is explained
        as a call of `call`, naming the first mistake in `error_suspects` that it reveals.
        `sent`: the program was sent already (`submission.begin`), the reply is only read."""
        reply = self.collect(call) if sent else self.send(program, call)
        if not reply.ok:
            failure = reply.failure or Failure("Error", "", 0, "run")
            lead, message = explanation(failure, call)
            for misconception, matches in error_suspects:
                if matches(failure):
                    message += " " + self.diagnose(misconception)
                    break
            raise LearnerError(message, call=lead)
        if not program.inspect:
            return Observed(reply.steps, None, program)
        if reply.inspect is None:
            raise LearnerError(
                say(
                    "{call}: the module's parameters and buffers did not come back",
                    "{call}：模块的参数和 buffer 没有返回",
                    call=call,
                ),
                call=call,
            )
        return Observed(reply.steps, Inspection.observe(reply.inspect), program)

    def run(self, program: Program, error_suspects: Sequence[ErrorSuspect] = (), *, sent: bool = False) -> Observed:
        return self.submit(
            program, call_text(program.cls, program.args, program.kwargs, None), error_suspects, sent=sent
        )

    def program(
        self,
        cls: str,
        args: Sequence[Any],
        kwargs: dict[str, Any] | None = None,
        *,
        state: dict[str, torch.Tensor] | None = None,
        dtype: torch.dtype | None = None,
        mode: str = "train",
        steps: Sequence[Step] = (),
        inspect: bool = False,
        kind: ProgramKind = ProgramKind.MODULE,
        launch: Launch | None = None,
    ) -> Program:
        return Program(
            cls=cls,
            args=list(args),
            kwargs=dict(kwargs or {}),
            state=state,
            device=self.device,
            dtype=dtype_name(dtype) if dtype is not None else None,
            mode=mode,
            steps=list(steps),
            inspect=inspect,
            seed=RUN.seed,
            kind=kind,
            launch=launch,
        )

    def inspect(
        self, cls: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None, dtype: torch.dtype | None = None
    ) -> Inspection:
        reply = self.run(self.program(cls, args, kwargs, inspect=True, dtype=dtype))
        assert reply.inspect is not None
        return reply.inspect

    # -- whole cases ---------------------------------------------------------------------------

    def forward_case(
        self,
        cls: str,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        x: Input,
        *,
        expected: Callable[[torch.Tensor, dict[str, torch.Tensor]], torch.Tensor],
        suspects: Callable[[torch.Tensor, dict[str, torch.Tensor]], list[tuple[Misconception, torch.Tensor]]]
        | None = None,
        error_suspects: Sequence[ErrorSuspect] = (),
        state: dict[str, torch.Tensor] | None = None,
        dtype: torch.dtype | None = None,
        mode: str = "train",
        tol: Tolerance | None = None,
        in_dtype: Callable[[torch.Tensor, dict[str, torch.Tensor]], torch.Tensor] | None = None,
    ) -> torch.Tensor:
        """Run forward on the learner's module and compare with `expected(x, state as quantised)`.

        In half precision the output must also come back in the input's dtype (the learner's
        parameters are moved to that dtype, so they share it). The tolerance is never tighter
        than what the case's precision delivers on this input (`own_errors`; `in_dtype`: the truth
        computed in the input's dtype, torch's own kernel, where the suite has one).
        """
        program = self.program(cls, args, kwargs, state=state, dtype=dtype, mode=mode, steps=[Step([x.tensor])])
        self.begin(program)  # the worker runs the learner's code while the truth is computed here
        quantised = {k: v.to(dtype) if dtype and v.is_floating_point() else v for k, v in (state or {}).items()}
        want = expected(x.tensor, quantised)
        got = self.run(program, error_suspects, sent=True).steps[0].output
        call, on = call_text(cls, args, kwargs), x.describe(self.device)
        if dtype in (torch.float16, torch.bfloat16):
            self.assert_dtype(got, dtype, call=call, on=on)

        @torch.no_grad()
        def error() -> float:
            own = [in_dtype(x.tensor, quantised)] if in_dtype and x.tensor.dtype == torch.float32 else []
            return own_errors(lambda moved: [expected(moved[0], quantised)], [x.tensor], [want], own)[0]

        self.assert_close(
            got,
            want,
            tol=tol or tolerance_for(x.tensor.dtype),
            own_error=error,
            call=call,
            on=on,
            suspects=(lambda: suspects(x.tensor, quantised)) if suspects else (),
        )
        return got

    def repeated_calls_case(
        self,
        cls: str,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        inputs: Sequence[Input],
        *,
        expected: Callable[[torch.Tensor], torch.Tensor],
        state: dict[str, torch.Tensor] | None = None,
        mode: str = "train",
        suspects: Callable[[torch.Tensor], list[tuple[Misconception, torch.Tensor]]] | None = None,
    ) -> None:
        """One module called on each input in turn: every output must match its own reference.

        Each input is first checked on a fresh module, so that a mistake in the computation is
        reported as itself (named by `suspects`, as the forward cases name it); only a module
        that is right when fresh and wrong on a later call is named as depending on earlier calls.
        """
        for x in {id(x): x for x in inputs}.values():
            self.forward_case(
                cls,
                args,
                kwargs,
                x,
                state=state,
                mode=mode,
                expected=lambda t, _: expected(t),
                suspects=(lambda t, _: suspects(t)) if suspects else None,
            )
        steps = [Step([x.tensor]) for x in inputs]
        replies = self.run(self.program(cls, args, kwargs, state=state, mode=mode, steps=steps)).steps
        for number, (x, reply) in enumerate(zip(inputs, replies, strict=True), start=1):
            call = say(
                "{call} (call {n} of {total} on the same module)",
                "{call}（同一模块的第 {n}/{total} 次调用）",
                call=call_text(cls, args, kwargs),
                n=number,
                total=len(inputs),
            )
            want = expected(x.tensor)

            @torch.no_grad()
            def error(x: Input = x, want: torch.Tensor = want) -> float:
                return own_errors(lambda moved: [expected(moved[0])], [x.tensor], [want])[0]

            self.assert_close(
                reply.output,
                want,
                tol=tolerance_for(x.tensor.dtype),
                own_error=error,
                call=call,
                on=x.describe(self.device),
                cause=STATEFUL,
            )

    def gradient_case(
        self,
        cls: str,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        x: Input,
        *,
        reference: torch.nn.Module,
        state: dict[str, torch.Tensor] | None = None,
        mode: str = "train",
        key: int = 99,
        suspects: Callable[[torch.Tensor, dict[str, torch.Tensor]], list[tuple[Misconception, torch.Tensor]]]
        | None = None,
    ) -> None:
        """Gradients of input and parameters against the float64 reference's autograd.

        `suspects(x, state)` (the forward variants, each with one mistake) are differentiated
        too, on float64 leaves, so that a gradient that matches a mistake's gradient is named.
        """
        grad_output = randn(x.tensor.shape, key)
        step = Step([x.tensor], input_grad=True, grad_output=grad_output)
        program = self.program(cls, args, kwargs, state=state, mode=mode, steps=[step])
        self.begin(program)  # the worker runs the learner's code while the truth is computed here
        reference = reference.double().train(mode == "train")
        if state:
            reference.load_state_dict({k: v.double() if v.is_floating_point() else v for k, v in state.items()})
        names = [name for name, _ in reference.named_parameters()]

        def truth(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
            """The gradients of the input and of each parameter, by the reference in the inputs' dtype."""
            module = copy.deepcopy(reference).to(tensors[0].dtype)
            leaf = tensors[0].detach().clone().requires_grad_(True)
            module(leaf).backward(tensors[1].to(tensors[0].dtype))
            grads = [leaf.grad, *(p.grad for _, p in module.named_parameters())]
            return [g if g is not None else torch.zeros(0) for g in grads]

        inputs = [x.tensor, grad_output.to(x.tensor.dtype)]
        want = truth([t.double() for t in inputs])
        got = self.run(program, sent=True).steps[0]
        errors = once(lambda: own_errors(truth, inputs, want, truth(inputs) if x.tensor.dtype == torch.float32 else []))
        call, on = call_text(cls, args, kwargs, method="backward"), x.describe(self.device)
        tol = TOLERANCES["gradient"]
        if not got.input_grads or got.input_grads[0] is None:
            fail(
                say(
                    "{call} on {on}: no gradient reached the input (is the graph cut by .detach(), .data or no_grad?)",
                    "{call}，{on}：输入没有得到梯度（计算图是否被 .detach()、.data 或 no_grad 切断了？）",
                    call=call,
                    on=on,
                ),
                call=call_on(call, on),
            )
        found = once(
            lambda: _gradient_suspects(suspects, x.tensor, state or {}, names, grad_output) if suspects else {}
        )
        what = say("gradient of the input", "输入的梯度")
        self.assert_close(
            got.input_grads[0],
            want[0],
            tol=tol,
            own_error=lambda: errors()[0],
            call=call,
            on=on,
            what=what,
            suspects=lambda: found().get("", []),
        )
        for index, name in enumerate(names, start=1):
            learner_grad = got.param_grads.get(name)
            if learner_grad is None:
                fail(
                    say(
                        "{call} on {on}: parameter `{name}` got no gradient",
                        "{call}，{on}：参数 `{name}` 没有得到梯度",
                        call=call,
                        on=on,
                        name=name,
                    ),
                    call=call_on(call, on),
                )
            what = say("gradient of {name}", "{name} 的梯度", name=name)
            self.assert_close(
                learner_grad,
                want[index],
                tol=tol,
                own_error=partial(at, errors, index),
                call=call,
                on=on,
                what=what,
                suspects=partial(_suspected, found, name),
            )

    # -- comparing -----------------------------------------------------------------------------

    def assert_close(
        self,
        got: torch.Tensor,
        expected: torch.Tensor,
        *,
        tol: Tolerance,
        call: str,
        on: str,
        what: str | None = None,
        suspects: Suspected | Callable[[], Suspected] = (),
        cause: Misconception | Callable[[], Misconception | None] | None = None,
        own_error: Callable[[], float] | None = None,
    ) -> None:
        """Fail with a precise message unless got ≈ expected (in float64).

        `own_error`: how far the case's own precision lands from `expected` on this input; `tol` is
        then widened to what that precision delivers (contract.achievable). It is asked only when
        `tol` alone fails, as are `suspects` and `cause` (given as functions): widening can only loosen, so a
        file within `tol` passes either way, and a passing case costs no extra reference run.

        The failure names the first suspect whose output matches, else `cause` when the case
        already knows what a failure here means (a later call on a module that was right fresh).
        """
        if tuple(got.shape) != tuple(expected.shape):
            fail(
                say(
                    "{call} on {on}: {what} has shape {got}, expected {expected}",
                    "{call}，{on}：{what}的形状是 {got}，应为 {expected}",
                    call=call,
                    on=on,
                    what=what or say("output", "输出"),
                    got=tuple(got.shape),
                    expected=tuple(expected.shape),
                ),
                call=call_on(call, on),
            )
        got64, expected64 = got.double(), expected.double()
        close = torch.isclose(got64, expected64, rtol=tol.rtol, atol=tol.atol)
        if bool(close.all()):
            return
        if own_error is not None:
            tol = achievable(tol, own_error())
            if tol.widened:
                close = torch.isclose(got64, expected64, rtol=tol.rtol, atol=tol.atol)
                if bool(close.all()):
                    return
        what = what or say("output", "输出")
        if callable(suspects):
            suspects = suspects()
        if callable(cause):  # what a failure here means, worked out only now that there is one
            cause = cause()
        error = (got64 - expected64).abs()
        error[~torch.isfinite(got64)] = float("inf")
        flat = int(torch.argmax(torch.where(close, torch.zeros_like(error), error + 1)).item())
        index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), got.shape)) if got.dim() else ()
        message = say(
            "{call} on {on}: {what} differs from the reference. Max abs error {err:.3g} at index {index}: "
            "expected {exp:.6g}, got {got:.6g} ({tol}).",
            "{call}，{on}：{what}与参考实现不一致。最大绝对误差 {err:.3g}，位于下标 {index}："
            "应为 {exp:.6g}，实际为 {got:.6g}（{tol}）。",
            call=call,
            on=on,
            what=what,
            err=error.max().item(),
            index=index,
            exp=expected64[index].item(),
            got=got64[index].item(),
            tol=tol.describe(RUN.lang),
        )
        # A mistake is named only where its signature shows: its output differs from the truth on
        # this input (else every wrong file near the truth would "match" it) and the learner's
        # output matches it everywhere (NaN where it gives NaN).
        near = tol.at_least(TOLERANCES["misconception"])
        for misconception, variant in suspects:
            if tuple(variant.shape) != tuple(got.shape):
                continue
            variant64 = variant.detach().double().cpu()
            if bool(torch.isclose(variant64, expected64.cpu(), rtol=tol.rtol, atol=tol.atol, equal_nan=True).all()):
                continue
            if bool(torch.isclose(got64.cpu(), variant64, rtol=near.rtol, atol=near.atol, equal_nan=True).all()):
                cause = misconception
                break
        if cause is not None:
            message += " " + self.diagnose(cause)
        fail(message, call=call_on(call, on))

    def diagnose(self, misconception: Misconception) -> str:
        """Record `misconception` for this case and the sentence that names it to the learner."""
        self.record(misconception)
        return say(
            "This matches a known mistake: {title}.",
            "这符合一个常见错误：{title}。",
            title=misconception.title.in_(RUN.lang),
        )

    def assert_dtype(self, got: torch.Tensor, expected: torch.dtype, *, call: str, on: str) -> None:
        if got.dtype != expected:
            fail(
                say(
                    "{call} on {on}: output dtype is {got}, expected {expected} (return the input's dtype when "
                    "the parameters share it)",
                    "{call}，{on}：输出的数据类型是 {got}，应为 {expected}"
                    "（参数与输入同为该类型时，返回输入的数据类型）",
                    call=call,
                    on=on,
                    got=dtype_name(got.dtype),
                    expected=dtype_name(expected),
                ),
                call=call_on(call, on),
            )


def once(compute: Callable[[], _T]) -> Callable[[], _T]:
    """`compute`, run at the first call only (what a failing comparison needs, shared by several)."""
    return functools.cache(compute)


def at(values: Callable[[], list[float]], index: int) -> float:
    """values()[index], asked when needed (a lazy `own_error`)."""
    return values()[index]


def _suspected(found: Callable[[], dict[str, list[tuple[Misconception, torch.Tensor]]]], name: str) -> Suspected:
    return found().get(name, [])


def _gradient_suspects(
    suspects: Callable[[torch.Tensor, dict[str, torch.Tensor]], list[tuple[Misconception, torch.Tensor]]],
    x: torch.Tensor,
    state: dict[str, torch.Tensor],
    names: Sequence[str],
    grad_output: torch.Tensor,
) -> dict[str, list[tuple[Misconception, torch.Tensor]]]:
    """Each mistaken forward's gradients, by what they are of: "" (the input) or a parameter's name."""
    leaf = x.detach().double().cpu().requires_grad_(True)
    params = {
        k: v.detach().double().cpu().requires_grad_(True) if v.is_floating_point() else v for k, v in state.items()
    }
    found: dict[str, list[tuple[Misconception, torch.Tensor]]] = {}
    with torch.enable_grad():
        for misconception, output in suspects(leaf, params):
            if not output.requires_grad or tuple(output.shape) != tuple(grad_output.shape):
                continue
            wrt = [leaf, *(params[n] for n in names if n in params)]
            grads = torch.autograd.grad(output, wrt, grad_output.double(), retain_graph=True, allow_unused=True)
            for name, grad in zip(["", *(n for n in names if n in params)], grads, strict=True):
                if grad is not None:
                    found.setdefault(name, []).append((misconception, grad))
    return found


def build_failure(
    harness: Harness, cls: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None
) -> Failure | None:
    """Build `cls(*args, **kwargs)` in the worker: what it raised, or None when it built.

    For contracts that require a constructor to refuse bad arguments (as torch's modules do).
    """
    reply = harness.send(harness.program(cls, args, kwargs), call_text(cls, args, kwargs, None))
    return None if reply.ok else reply.failure or Failure("Error", "", 0, "build")
