"""How the worker calls what a Program names: an nn.Module, an autograd Function or a plain object.

Runs in the untrusted worker, next to the learner's code: it builds the target, makes one
step's call and turns the result into tensors for the reply. For a Function it also watches
the learner's backward for autograd (a kata that asks for a hand-written backward forbids it).
The watch is an in-process monitor: code written to hide from it can, but it cannot change the
numbers, which the runner compares outside this process.
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterator
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from normkata.grading.contract import dtype_of
from normkata.grading.messages import Program, ProgramKind, Step
from normkata.grading.worker import held

#: What the watch reports, by the callable it saw (plain names: they cross the wire as text).
_AUTOGRAD_CALLS = {
    torch.autograd.grad: "torch.autograd.grad",
    torch.autograd.backward: "torch.autograd.backward",
    torch.Tensor.backward: "Tensor.backward",
}
GRAD_MODE = "grad mode enabled"
GRAD_FN = "grad_fn on a returned gradient"
FORWARD_GRAD_MODE = "grad mode enabled in forward"
FORWARD_GRAPH = "an autograd graph kept by forward"


def build(cls: Any, program: Program) -> Any:
    """The target of the program's steps: a new instance, or the Function class itself."""
    if program.kind is ProgramKind.FUNCTION:
        if not (isinstance(cls, type) and issubclass(cls, torch.autograd.Function)):
            raise TypeError(f"{program.cls} is not a torch.autograd.Function subclass")
        if getattr(cls.apply, "__func__", None) is not getattr(torch.autograd.Function.apply, "__func__", None):
            raise TypeError(f"{program.cls} overrides apply: define forward and backward, and let autograd call them")
        return cls
    if program.kind is ProgramKind.LAUNCHER:  # a kernel kata's plain function: normkata.grading.worker.kernels calls it
        if not callable(cls) or isinstance(cls, type):
            raise TypeError(f"{program.cls} is not a function")
        return cls
    kwargs = {k: dtype_of(v) or v if k == "dtype" else v for k, v in program.kwargs.items()}
    target = cls(*program.args, **kwargs)
    if program.kind is ProgramKind.MODULE and not isinstance(target, torch.nn.Module):
        raise TypeError(f"{program.cls}(...) is not a torch.nn.Module")
    return target


def invoke(target: Any, kind: ProgramKind, step: Step, inputs: list[torch.Tensor], leading: list[Any]) -> Any:
    """The step's call on the target; `leading` goes before the inputs (the other object of a merge)."""
    if kind is ProgramKind.FUNCTION:
        return target.apply(*inputs, *step.extra, **step.call_kwargs)
    if step.attribute:
        return getattr(target, step.attribute)
    call = getattr(target, step.method) if step.method else target
    return call(*leading, *inputs, *step.extra, **step.call_kwargs)


def outputs_of(result: Any, what: str) -> list[torch.Tensor]:
    """None: no outputs; a number: a 0-dim float64 tensor; a tensor or a tuple/list of tensors."""
    if result is None:
        return []
    if isinstance(result, numbers.Real) and not isinstance(result, bool):
        return [torch.tensor(float(result), dtype=torch.float64)]
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    if not all(isinstance(item, torch.Tensor) for item in items):
        raise TypeError(
            f"{what} returned {type(result).__name__}: expected a torch.Tensor, a tuple of tensors, a number or None"
        )
    return items


def describe_call(program: Program, step: Step) -> str:
    """`RunningStats.update`, `RMSNormFunction.apply`, `RMSNorm.forward`: for error messages."""
    if program.kind is ProgramKind.FUNCTION:
        return f"{program.cls}.apply"
    return f"{program.cls}.{step.attribute or step.method or 'forward'}"


class _AutogradWatch(TorchFunctionMode):
    """Sees every torch call of the learner's backward (or forward); notes the autograd ones and
    any made with grad mode on (however it was switched on: torch._C._set_grad_enabled too)."""

    def __init__(self, found: set[str], grad_mode: str = GRAD_MODE) -> None:
        super().__init__()
        self.found = found
        self.grad_mode = grad_mode

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = _AUTOGRAD_CALLS.get(func)
        if name:
            self.found.add(name)
        if torch.is_grad_enabled():
            self.found.add(self.grad_mode)
        return func(*args, **(kwargs or {}))


def _has_graph(value: Any) -> bool:
    """A tensor (or a tuple/list/dict of them) that carries autograd history."""
    if isinstance(value, torch.Tensor):
        return value.grad_fn is not None
    if isinstance(value, (tuple, list)):
        return any(_has_graph(v) for v in value)
    if isinstance(value, dict):
        return any(_has_graph(v) for v in value.values())
    return False


@contextlib.contextmanager
def watch_backward(
    cls: type[torch.autograd.Function], found: set[str], returned: list[torch.Tensor | None] | None = None
) -> Iterator[None]:
    """While open, the Function's backward (or vjp) adds to `found` how it used autograd, and
    puts in `returned` a plain copy of each gradient it returned, as torch holds it (autograd sums
    one that broadcasts; the runner reads its shape: a subclass could say another)."""
    name = "vjp" if cls.vjp is not torch.autograd.Function.vjp else "backward"
    own = cls.__dict__.get(name)
    learner_fn = getattr(cls, name)

    def watched(ctx: Any, *grads: Any) -> Any:
        if torch.is_grad_enabled():
            found.add(GRAD_MODE)
        with _AutogradWatch(found):
            result = learner_fn(ctx, *grads)
        gradients = result if isinstance(result, (tuple, list)) else (result,)
        if any(isinstance(g, torch.Tensor) and g.grad_fn is not None for g in gradients):
            found.add(GRAD_FN)
        if returned is not None:
            returned[:] = [held.plain(g) if isinstance(g, torch.Tensor) else None for g in gradients]
        return result

    # forward runs with grad mode off under apply: the gradient must come from backward alone, so
    # a forward that switches grad mode on, or keeps a graph for backward to run, breaks the rule.
    own_forward = cls.__dict__.get("forward")
    learner_forward = cls.forward

    def watched_forward(*args: Any, **kwargs: Any) -> Any:
        with _AutogradWatch(found, FORWARD_GRAD_MODE):
            result = learner_forward(*args, **kwargs)
        if torch.is_grad_enabled():
            found.add(FORWARD_GRAD_MODE)
        ctx = args[0] if args and isinstance(args[0], torch.autograd.function.FunctionCtx) else None
        if _has_graph(result) or (ctx is not None and _has_graph(dict(vars(ctx)))):
            found.add(FORWARD_GRAPH)
        return result

    setattr(cls, name, staticmethod(watched))
    cls.forward = staticmethod(watched_forward)  # type: ignore[method-assign]
    try:
        yield
    finally:
        for attribute, original in ((name, own), ("forward", own_forward)):
            if original is not None:
                setattr(cls, attribute, original)
            else:
                delattr(cls, attribute)
