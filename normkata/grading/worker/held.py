"""The learner's objects as torch holds them: what the worker reads of them for a reply.

Runs in the untrusted worker. The learner's class may override any method (`named_parameters`,
`state_dict`, `named_children`, `load_state_dict`, ...) and its tensors may be subclasses whose
`__torch_function__` answers every attribute read and method call, TensorBase's own getters
included (`vars(TensorBase)["requires_grad"].__get__(t)` is dispatched to it). So nothing here
asks the learner's objects about themselves: a module is read from torch's storage of each
submodule, with torch's own rules for naming and de-duplicating; a tensor through a plain alias
made by TensorBase's C method, with torch functions and Python dispatch off; and whether a
tensor requires grad by what autograd returns for it. The reply carries tensors and names only:
the runner derives every fact a suite scores from them (contract.Inspection.observe).

The limit is the worker's own: code that rewrites the grader's modules or torch's in this
process's memory could still change what is read. It cannot make a wrong value right: values
are compared by the runner.
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Iterator
from typing import Any

import torch

from normkata.grading.messages import HeldModule, loads_into

#: Bound when the worker is imported, before any learner code runs (which could rebind the names).
_TENSOR_BASE = torch._C.TensorBase
_AS_SUBCLASS = _TENSOR_BASE.as_subclass  # a C method: not dispatched to a subclass's __torch_function__
_GRAD = vars(_TENSOR_BASE)["grad"]
_DISABLE_FUNCTION = torch._C.DisableTorchFunction
_DISABLE_DISPATCH = torch._C._DisableTorchDispatch
_AUTOGRAD_GRAD = torch.autograd.grad
_ENABLE_GRAD = torch.enable_grad
#: Every built-in exception class, by identity (a learner's class may be named ValueError).
_BUILTIN_EXCEPTIONS = {
    id(v): v.__name__ for v in vars(builtins).values() if isinstance(v, type) and issubclass(v, BaseException)
}
_MRO = vars(type)["__mro__"]


@contextlib.contextmanager
def as_torch_holds() -> Iterator[None]:
    """While open, no Tensor subclass's `__torch_function__` or `__torch_dispatch__`, and no
    mode, answers for a tensor: torch's own kernels and getters do."""
    with _DISABLE_FUNCTION(), _DISABLE_DISPATCH():
        yield


def _alias(tensor: torch.Tensor) -> torch.Tensor:
    """A plain torch.Tensor viewing `tensor`'s data, still attached to its autograd graph."""
    return _AS_SUBCLASS(tensor, torch.Tensor)


def plain(tensor: torch.Tensor) -> torch.Tensor:
    """A detached plain CPU copy of the data torch holds for `tensor`."""
    with as_torch_holds():
        return _alias(tensor).detach().to("cpu").clone()


def grad_of(tensor: torch.Tensor) -> torch.Tensor | None:
    """`tensor.grad` as torch holds it (a subclass may define its own `grad`)."""
    with as_torch_holds():
        grad: torch.Tensor | None = _GRAD.__get__(tensor)
        return None if grad is None else plain(grad)


def clear_grad(tensor: torch.Tensor) -> None:
    with as_torch_holds():
        _GRAD.__set__(tensor, None)


def shape_of(tensor: torch.Tensor) -> tuple[int, ...]:
    with as_torch_holds():
        return tuple(_alias(tensor).shape)


def probe(tensor: torch.Tensor) -> torch.Tensor | None:
    """Autograd's gradient of `tensor.sum()` with respect to a plain alias of it: ones of its
    shape when it requires grad (a leaf that does, or a tensor that carries a graph), None when
    autograd refuses. Nothing of the learner's runs: hooks on `tensor` are not on its alias."""
    with as_torch_holds(), _ENABLE_GRAD():
        alias = _alias(tensor)
        if not alias.is_floating_point():
            return None
        try:
            (grad,) = _AUTOGRAD_GRAD(alias.sum(), alias)
        except RuntimeError:  # "element 0 of tensors does not require grad and does not have a grad_fn"
            return None
        return plain(grad)


def builtin_name(error: BaseException) -> str:
    """The built-in exception class nearest in the MRO of `error`'s class: what an `except`
    clause of a built-in class matches (`type.__mro__` read as `type` holds it)."""
    for kind in _MRO.__get__(type(error)):
        name = _BUILTIN_EXCEPTIONS.get(id(kind))
        if name is not None:
            return name
    return "BaseException"


# -- a module, as torch holds it --------------------------------------------------------------


class _Slots:
    """One module's own storage: what nn.Module.__setattr__ and register_* fill."""

    def __init__(self, module: Any) -> None:
        found = object.__getattribute__(module, "__dict__")
        self.parameters = _entries(found, "_parameters")
        self.buffers = _entries(found, "_buffers")
        self.modules = _entries(found, "_modules")
        non_persistent = found.get("_non_persistent_buffers_set", set())
        self.non_persistent = set(non_persistent) if isinstance(non_persistent, (set, frozenset)) else set()


def _entries(found: dict[str, Any], name: str) -> list[tuple[str, Any]]:
    """The (name, value) pairs of one storage dict, read as a dict (not through a subclass's items)."""
    value = found.get(name)
    if not isinstance(value, dict):
        raise TypeError(f"the module's {name} is not a dict: it was replaced")
    return [(str(k), v) for k, v in dict.items(value)]


def _named_modules(module: Any, prefix: str = "", memo: set[int] | None = None) -> Iterator[tuple[str, Any]]:
    """Module.named_modules(): each module once, under its first name, preorder."""
    memo = set() if memo is None else memo
    if id(module) in memo:
        return
    memo.add(id(module))
    yield prefix, module
    for name, sub in _Slots(module).modules:
        if sub is not None:
            yield from _named_modules(sub, f"{prefix}.{name}" if prefix else name, memo)


def _named_members(module: Any, kind: str) -> list[tuple[str, torch.Tensor | None]]:
    """Module._named_members(remove_duplicate=True) over `_parameters` or `_buffers`: each tensor
    once, under its first name; None entries too (named_* skip them; the caller decides)."""
    found: list[tuple[str, torch.Tensor | None]] = []
    seen: set[int] = set()
    for prefix, sub in _named_modules(module):
        for name, value in getattr(_Slots(sub), kind):
            if value is not None and id(value) in seen:
                continue
            if value is not None:
                seen.add(id(value))
            found.append((f"{prefix}.{name}" if prefix else name, value))
    return found


def state_entries(module: Any, prefix: str = "") -> dict[str, torch.Tensor]:
    """What Module.state_dict() holds: parameters, persistent buffers, then each submodule's, a
    module used twice under both names. (Extra state, `get_extra_state`, is not a tensor; no kata
    has one.)"""
    slots = _Slots(module)
    found = {prefix + name: value for name, value in slots.parameters if value is not None}
    found.update(
        (prefix + name, value)
        for name, value in slots.buffers
        if value is not None and name not in slots.non_persistent
    )
    for name, sub in slots.modules:
        if sub is not None:
            found.update(state_entries(sub, f"{prefix}{name}."))
    return found


def held_module(module: Any) -> HeldModule:
    """`module` as torch holds it (contract.HeldModule), each tensor probed for a gradient."""
    parameters = named_parameters(module)
    every_buffer = _named_members(module, "buffers")
    buffers = [(n, t) for n, t in every_buffer if t is not None]
    state = state_entries(module)
    tensors: dict[str, torch.Tensor | None] = {}
    for name, value in [*parameters, *buffers, *state.items()]:
        if name not in tensors:
            tensors[name] = plain(value)
    tensors.update((name, None) for name, value in every_buffer if value is None)
    children: list[str] = []
    memo: set[int] = set()
    for name, sub in _Slots(module).modules:  # Module.named_children()
        if sub is not None and id(sub) not in memo:
            memo.add(id(sub))
            children.append(name)
    return HeldModule(
        tensors=tensors,
        parameters=[name for name, _ in parameters],
        buffers=[name for name, _ in buffers] + [name for name, value in every_buffer if value is None],
        state_dict=list(state),
        children=children,
        gradients={name: probe(value) for name, value in [*parameters, *buffers]},
    )


def named_parameters(module: Any) -> list[tuple[str, torch.Tensor]]:
    """Module.named_parameters(), as torch holds them."""
    return [(n, t) for n, t in _named_members(module, "parameters") if t is not None]


def named_buffers(module: Any) -> list[tuple[str, torch.Tensor]]:
    """Module.named_buffers(), as torch holds them."""
    return [(n, t) for n, t in _named_members(module, "buffers") if t is not None]


def load_what_fits(module: Any, state: dict[str, torch.Tensor]) -> None:
    """Load every entry torch itself would load (its shape fits, `loads_into`), with the
    learner's own load_state_dict: loading is the module's behaviour, and the cases judge it by
    the outputs. What did not fit, the runner works out itself (contract.StateLoad.derive)."""
    own = {name: shape_of(value) for name, value in state_entries(module).items()}
    fits = {k: v for k, v in state.items() if k in own and loads_into(own[k], tuple(v.shape))}
    module.load_state_dict(fits, strict=False)


__all__ = [
    "as_torch_holds",
    "builtin_name",
    "clear_grad",
    "grad_of",
    "held_module",
    "load_what_fits",
    "named_buffers",
    "named_parameters",
    "plain",
    "probe",
    "shape_of",
    "state_entries",
]
