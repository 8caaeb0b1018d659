"""What hidden suites use: run the learner's code, compare with a float64 reference, explain.

Runs in the trusted runner. Failure messages say what was called, on what input, what came
back and what was expected, and name a known misconception when the learner's output matches
the reference run with that mistake.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import torch

from normkata.grading.proxy import Submission, SubmissionError

#: Tolerances (rtol = atol) by dtype, from GRADING.md.
TOLERANCE = {torch.float32: 1e-5, torch.bfloat16: 1.6e-2, torch.float16: 2e-3, torch.float64: 1e-10}
GRAD_TOLERANCE = 1e-4

DTYPE_NAMES = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16", torch.float64: "float64"}


class CaseFailure(AssertionError):
    """The learner's code ran but gave a wrong result: a failed case, explained."""


def fail(message: str) -> NoReturn:
    """Fail the current case with a message for the learner."""
    raise CaseFailure(message)


class LearnerError(Exception):
    """The learner's code raised, crashed or hung: an errored case."""


@dataclass(frozen=True)
class Misconception:
    id: str
    title_en: str
    title_zh: str
    hint_en: str
    hint_zh: str


@dataclass
class Input:
    """A tensor with the words that describe it to the learner."""

    tensor: torch.Tensor
    label: str

    def describe(self, device: str = "cpu") -> str:
        shape = tuple(self.tensor.shape)
        return (
            f"{self.label} input of shape {shape}, {DTYPE_NAMES.get(self.tensor.dtype, self.tensor.dtype)} on {device}"
        )


class Harness:
    """One grading session's view of the submission, the reference and the diagnoses."""

    def __init__(self, submission: Submission, reference: Any, device: str, record: Callable[[Misconception], None]):
        self.submission = submission
        self.reference = reference
        self.device = device
        self.record = record

    # -- running the learner's code ------------------------------------------------------------

    def run(self, program: dict[str, Any]) -> dict[str, Any]:
        try:
            reply = self.submission.run(program)
        except SubmissionError as exc:
            raise LearnerError(str(exc)) from None
        if not reply.get("ok"):
            where = f" (your file, line {reply['line']})" if reply.get("line") else ""
            message = " ".join(str(reply.get("message")).split())  # one line, whatever torch printed
            raise LearnerError(f"{_call(program)} raised {reply.get('error')}: {message}{where}")
        return reply

    def program(
        self,
        cls: str,
        args: Sequence[Any],
        kwargs: dict[str, Any] | None = None,
        *,
        state: dict[str, torch.Tensor] | None = None,
        dtype: torch.dtype | None = None,
        mode: str = "train",
        steps: list[dict[str, Any]] | None = None,
        inspect: bool = False,
        attrs: Sequence[str] = (),
    ) -> dict[str, Any]:
        move = {"device": self.device}
        if dtype is not None:
            move["dtype"] = DTYPE_NAMES[dtype]
        return {
            "cls": cls,
            "args": list(args),
            "kwargs": dict(kwargs or {}),
            "state": state,
            "to": move,
            "mode": mode,
            "steps": steps or [],
            "inspect": inspect,
            "attrs": list(attrs),
        }

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
        state: dict[str, torch.Tensor] | None = None,
        dtype: torch.dtype | None = None,
        mode: str = "train",
        tol: float | None = None,
        atol: float | None = None,
    ) -> torch.Tensor:
        """Run forward on the learner's module and compare with `expected(x, state as quantised)`.

        In half precision the output must also come back in the input's dtype (the learner's
        parameters are moved to that dtype, so they share it).
        """
        program = self.program(cls, args, kwargs, state=state, dtype=dtype, mode=mode, steps=[{"inputs": [x.tensor]}])
        got = self.run(program)["steps"][0]["output"]
        quantised = {k: v.to(dtype) if dtype and v.is_floating_point() else v for k, v in (state or {}).items()}
        call, on = call_text(cls, args, kwargs), x.describe(self.device)
        if dtype in (torch.float16, torch.bfloat16):
            self.assert_dtype(got, dtype, call=call, on=on)
        self.assert_close(
            got,
            expected(x.tensor, quantised),
            tol=tol or TOLERANCE[x.tensor.dtype],
            atol=atol,
            call=call,
            on=on,
            suspects=suspects(x.tensor, quantised) if suspects else (),
        )
        return got

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
        seed: int = 99,
    ) -> None:
        """Gradients of input and parameters against the float64 reference's autograd."""
        grad_output = torch.randn(x.tensor.shape, generator=seeded(seed))
        step = {"inputs": [x.tensor], "input_grad": True, "grad_output": grad_output}
        got = self.run(self.program(cls, args, kwargs, state=state, mode=mode, steps=[step]))["steps"][0]
        reference = reference.double().train(mode == "train")
        if state:
            reference.load_state_dict({k: v.double() if v.is_floating_point() else v for k, v in state.items()})
        x64 = x.tensor.double().requires_grad_(True)
        reference(x64).backward(grad_output.double())
        call, on = call_text(cls, args, kwargs, method="backward"), x.describe(self.device)
        if got["input_grads"][0] is None:
            fail(f"{call} on {on}: no gradient reached the input (is the graph cut by .detach(), .data or no_grad?)")
        self.assert_close(
            got["input_grads"][0], x64.grad, tol=GRAD_TOLERANCE, call=call, on=on, what="gradient of the input"
        )
        for name, parameter in reference.named_parameters():
            learner_grad = got["param_grads"].get(name)
            if learner_grad is None:
                fail(f"{call} on {on}: parameter {name!r} got no gradient")
            self.assert_close(
                learner_grad, parameter.grad, tol=GRAD_TOLERANCE, call=call, on=on, what=f"gradient of {name}"
            )

    def inspect(
        self, cls: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None, **options: Any
    ) -> dict[str, Any]:
        return self.run(self.program(cls, args, kwargs, inspect=True, **options))["inspect"]

    # -- comparing -----------------------------------------------------------------------------

    def assert_close(
        self,
        got: torch.Tensor,
        expected: torch.Tensor,
        *,
        tol: float,
        call: str,
        on: str,
        what: str = "output",
        suspects: Sequence[tuple[Misconception, torch.Tensor]] = (),
        atol: float | None = None,
    ) -> None:
        """Fail with a precise message unless got ≈ expected (in float64)."""
        if tuple(got.shape) != tuple(expected.shape):
            raise CaseFailure(f"{call} on {on}: {what} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}")
        got64, expected64 = got.double(), expected.double()
        atol = tol if atol is None else atol
        close = torch.isclose(got64, expected64, rtol=tol, atol=atol)
        if bool(close.all()):
            return
        error = (got64 - expected64).abs()
        error[~torch.isfinite(got64)] = float("inf")
        flat = int(torch.argmax(torch.where(close, torch.zeros_like(error), error + 1)).item())
        index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), got.shape)) if got.dim() else ()
        message = (
            f"{call} on {on}: {what} differs from the reference. "
            f"Max abs error {error.max().item():.3g} at index {index}: expected {expected64[index].item():.6g}, "
            f"got {got64[index].item():.6g} ({_tolerance_text(tol, atol)})."
        )
        for misconception, variant in suspects:
            if tuple(variant.shape) == tuple(got.shape) and bool(
                torch.isclose(got64, variant.double(), rtol=max(tol, 1e-4), atol=max(atol, 1e-4)).all()
            ):
                self.record(misconception)
                message += f" This matches a known mistake: {misconception.title_en}. Hint: {misconception.hint_en}"
                break
        raise CaseFailure(message)

    def assert_dtype(self, got: torch.Tensor, expected: torch.dtype, *, call: str, on: str) -> None:
        if got.dtype != expected:
            raise CaseFailure(
                f"{call} on {on}: output dtype is {DTYPE_NAMES.get(got.dtype, got.dtype)}, "
                f"expected {DTYPE_NAMES[expected]} (return the input's dtype when the parameters share it)"
            )


def _tolerance_text(rtol: float, atol: float) -> str:
    return f"tolerance rtol = atol = {rtol:g}" if rtol == atol else f"tolerance rtol = {rtol:g}, atol = {atol:.3g}"


def _call(program: dict[str, Any]) -> str:
    return call_text(program["cls"], program.get("args", []), program.get("kwargs"), method=None)


def call_text(
    cls: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None, method: str | None = "forward"
) -> str:
    """How a call reads to the learner: `RMSNorm(8, eps=1e-05).forward`."""
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in (kwargs or {}).items()]
    return f"{cls}({', '.join(parts)})" + (f".{method}" if method else "")


def seeded(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(shape: Sequence[int], seed: int, *, scale: float = 1.0, shift: float = 0.0) -> torch.Tensor:
    return torch.randn(*shape, generator=seeded(seed)) * scale + shift


def quantise(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The tensor the learner will receive, in `dtype`."""
    return x.to(dtype)


# -- module state ------------------------------------------------------------------------------


def expect_parameters(call: str, info: dict[str, Any], expected: dict[str, torch.Tensor]) -> None:
    """Exactly these parameters, with these shapes, dtypes and initial values."""
    names = list(info["parameters"])
    if sorted(names) != sorted(expected):
        fail(f"{call} has parameters {names}, expected {list(expected)}")
    for name, value in expected.items():
        got = info["parameters"][name]
        want_dtype = DTYPE_NAMES.get(value.dtype, str(value.dtype))
        if got["shape"] != list(value.shape) or got["dtype"] != want_dtype:
            fail(
                f"{call}.{name} is {got['dtype']} of shape {got['shape']}, "
                f"expected {want_dtype} of shape {list(value.shape)}"
            )
        if not got["is_parameter"] or not got["requires_grad"]:
            fail(f"{call}.{name} must be an nn.Parameter that requires grad")
        if not torch.equal(got["value"].to(value.dtype), value):
            fail(f"{call}.{name} should start as {_describe_init(value)}")


def expect_keys(call: str, what: str, got: list[str], expected: list[str]) -> None:
    if sorted(got) != sorted(expected):
        fail(f"{call}: {what} is {got}, expected {expected}")


def expect_attr(call: str, info: dict[str, Any], name: str, expected: Any) -> None:
    got = info["attrs"].get(name, {"missing": True})
    if got.get("missing"):
        fail(f"{call} has no attribute {name!r} (torch's module has one: keep the same name)")
    if "value" not in got or got["value"] != expected:
        shown = got.get("value", got.get("repr", got))
        fail(f"{call}.{name} is {shown!r}, expected {expected!r}")


def _describe_init(value: torch.Tensor) -> str:
    if bool((value == 1).all()):
        return "ones"
    if bool((value == 0).all()):
        return "zeros"
    return "the given values"
