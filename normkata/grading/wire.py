"""Dataclasses to and from the plain containers that cross every pipe of the grader.

Runner↔worker: torch.save()d dicts, lists, numbers, strings and tensors only (the runner loads
them with weights_only=True). Client↔runner: JSON lines (a `RunnerRequest`, a `RunnerReply`).
`to_wire` flattens a dataclass into those (an enum into its value); `from_wire` builds the
dataclass back and checks every field's type, so a malformed reply from a hostile worker is an
error, never a half-built object. torch is imported only for dataclasses that name it: the CLI
reads a verdict without it.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from enum import Enum
from functools import cache
from typing import Any, TypeVar, Union, get_args, get_origin

T = TypeVar("T")


class WireError(ValueError):
    """A message does not have the shape its dataclass declares."""


def to_wire(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_wire(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list):
        return [to_wire(v) for v in value]
    if isinstance(value, tuple):  # kept: a learner's constructor may be handed a tuple shape
        return tuple(to_wire(v) for v in value)
    if isinstance(value, dict):
        return {str(k): to_wire(v) for k, v in value.items()}
    return value


def from_wire(cls: type[T], data: Any) -> T:
    result = _convert(cls, data, cls.__name__)
    return typing.cast(T, result)


@cache
def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls)
    except NameError:  # the contract names torch.Tensor only for type checkers
        import torch

        return typing.get_type_hints(cls, localns={"torch": torch})


_PRIMED: set[type] = set()


def prime(*classes: type) -> None:
    """Resolve the type hints of these dataclasses (and those they contain) now.

    The worker calls it before it drops normkata's modules, after which the hints could no
    longer be resolved.
    """
    for cls in classes:
        if cls in _PRIMED:  # a dataclass may contain itself (Step.other)
            continue
        _PRIMED.add(cls)
        for hint in _hints(cls).values():
            for inner in (hint, *get_args(hint), *(a for g in get_args(hint) for a in get_args(g))):
                if dataclasses.is_dataclass(inner) and isinstance(inner, type):
                    prime(inner)


def _convert(kind: Any, data: Any, where: str) -> Any:
    if kind is Any:
        return data
    origin = get_origin(kind)
    if origin in (Union, types.UnionType):
        for option in get_args(kind):
            try:
                return _convert(option, data, where)
            except WireError:
                continue
        raise WireError(f"{where}: unexpected {type(data).__name__}")
    if kind is type(None):
        if data is not None:
            raise WireError(f"{where}: expected None")
        return None
    if dataclasses.is_dataclass(kind):
        if not isinstance(data, dict):
            raise WireError(f"{where}: expected a mapping")
        hints = _hints(kind)  # type: ignore[arg-type]
        values = {}
        for f in dataclasses.fields(kind):
            if f.name in data:
                values[f.name] = _convert(hints[f.name], data[f.name], f"{where}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise WireError(f"{where}: missing {f.name}")
        constructor: Any = kind
        return constructor(**values)
    if origin in (list, tuple):
        if not isinstance(data, (list, tuple)):
            raise WireError(f"{where}: expected a list")
        (item,) = get_args(kind)[:1] or (Any,)
        converted = [_convert(item, v, f"{where}[]") for v in data]
        return converted if origin is list else tuple(converted)
    if origin is dict:
        if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
            raise WireError(f"{where}: expected a mapping with text keys")
        _key, value_kind = get_args(kind)
        return {k: _convert(value_kind, v, f"{where}[{k}]") for k, v in data.items()}
    if kind is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise WireError(f"{where}: expected a number")
        return float(data)
    if kind is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise WireError(f"{where}: expected a whole number")
        return data
    torch = sys.modules.get("torch")  # a hint that names torch.Tensor has imported it
    if torch is not None and kind is torch.Tensor:
        if type(data) is not torch.Tensor:
            raise WireError(f"{where}: expected a plain tensor")
        return data
    if isinstance(kind, type) and issubclass(kind, Enum):
        try:
            return kind(data)
        except ValueError:
            raise WireError(f"{where}: unknown {kind.__name__} {data!r}") from None
    if isinstance(kind, type):
        if not isinstance(data, kind):
            raise WireError(f"{where}: expected {kind.__name__}")
        return data
    raise WireError(f"{where}: cannot read {kind!r}")
