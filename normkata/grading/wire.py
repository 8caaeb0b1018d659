"""Dataclasses to and from the plain containers that cross every pipe of the grader.

Runner↔worker: dicts, lists, tuples, numbers, strings and tensors only (codec.py's bytes, which
run nothing when read). Client↔runner: JSON lines (a `RunnerRequest`, a `RunnerReply`).
`to_wire` flattens a dataclass into those (an enum into its value); `from_wire` builds the
dataclass back and checks every field's type, and the dataclass checks its values (a
`__post_init__` raising ValueError: a kernel finding's lane count, a timing that is not a time),
so a malformed reply from a hostile worker is an error naming the field, never a half-built
object. torch is imported only for dataclasses that name it: the CLI reads a verdict without it.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any, TypeVar, Union, get_args, get_origin

T = TypeVar("T")


class WireError(ValueError):
    """A message does not have the shape its dataclass declares."""


def to_wire(value: Any) -> Any:
    kind: Any = type(value)
    if kind in _PLAIN:
        return value
    names = _field_names(kind)
    if names is not None:
        return {name: to_wire(getattr(value, name)) for name in names}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list):
        return [to_wire(v) for v in value]
    if isinstance(value, tuple):  # kept: a learner's constructor may be handed a tuple shape
        return tuple(to_wire(v) for v in value)
    if isinstance(value, dict):
        return {str(k): to_wire(v) for k, v in value.items()}
    return value


#: Types written as they are (exactly these: an enum that is also a str is written as its value).
_PLAIN = frozenset({str, int, float, bool, type(None)})


@cache
def _field_names(kind: Any) -> tuple[str, ...] | None:
    """The fields of a dataclass type, None for any other type (asked once per type: a verdict
    holds hundreds of values)."""
    return tuple(f.name for f in dataclasses.fields(kind)) if dataclasses.is_dataclass(kind) else None


def from_wire(cls: type[T], data: Any) -> T:
    kind: Any = cls
    try:
        return typing.cast(T, _reader(kind)(data))
    except WireError as error:
        raise WireError(f"{cls.__name__}{error}") from None


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


Reader = Callable[[Any], Any]


@cache
def _reader(kind: Any) -> Reader:
    """A function that reads a value of `kind` (or raises WireError with where, after the root,
    and why), made once per kind: a verdict holds hundreds of values, read on every grade."""
    if kind is Any:
        return _as_is
    origin = get_origin(kind)
    if origin in (Union, types.UnionType):
        return _union(get_args(kind))
    if kind is type(None):
        return _none
    if dataclasses.is_dataclass(kind):
        return _dataclass(kind)
    if origin in (list, tuple):
        return _sequence(_reader((get_args(kind)[:1] or (Any,))[0]), origin)
    if origin is dict:
        return _mapping(_reader(get_args(kind)[1]))
    if kind is float:
        return _float
    if kind is int:
        return _int
    torch = sys.modules.get("torch")  # a hint that names torch.Tensor has imported it
    if torch is not None and kind is torch.Tensor:
        return _exactly(kind, "a plain tensor")
    if isinstance(kind, type) and issubclass(kind, Enum):
        return _enum(kind)
    if isinstance(kind, type):
        return _instance(kind)
    raise WireError(f": cannot read {kind!r}")


def _as_is(data: Any) -> Any:
    return data


def _none(data: Any) -> None:
    if data is not None:
        raise WireError(": expected None")


def _float(data: Any) -> float:
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise WireError(": expected a number")
    return float(data)


def _int(data: Any) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise WireError(": expected a whole number")
    return data


def _union(options: tuple[Any, ...]) -> Reader:
    readers = [_reader(option) for option in options]
    if len(readers) == 2 and _none in readers:  # X | None, the common case
        other = readers[0] if readers[1] is _none else readers[1]
        return lambda data: None if data is None else other(data)

    def read(data: Any) -> Any:
        for reader in readers:
            try:
                return reader(data)
            except WireError:
                continue
        raise WireError(f": unexpected {type(data).__name__}")

    return read


def _dataclass(kind: Any) -> Reader:
    fields: list[tuple[str, Reader, bool]] = []  # filled on first use: a dataclass may contain itself

    def read(data: Any) -> Any:
        if not isinstance(data, dict):
            raise WireError(": expected a mapping")
        if not fields:
            hints, missing = _hints(kind), dataclasses.MISSING
            fields[:] = [
                (f.name, _reader(hints[f.name]), f.default is missing and f.default_factory is missing)
                for f in dataclasses.fields(kind)
            ]
        values = {}
        for name, reader, required in fields:
            if name in data:
                try:
                    values[name] = reader(data[name])
                except WireError as error:
                    raise WireError(f".{name}{error}") from None
            elif required:
                raise WireError(f": missing {name}")
        try:
            return kind(**values)
        except ValueError as error:  # the dataclass's own check of its values (`__post_init__`)
            raise WireError(f": {error}") from None

    return read


def _sequence(item: Reader, origin: Any) -> Reader:
    def read(data: Any) -> Any:
        if not isinstance(data, (list, tuple)):
            raise WireError(": expected a list")
        try:
            converted = [item(v) for v in data]
        except WireError as error:
            raise WireError(f"[]{error}") from None
        return converted if origin is list else tuple(converted)

    return read


def _mapping(value: Reader) -> Reader:
    def read(data: Any) -> Any:
        if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
            raise WireError(": expected a mapping with text keys")
        converted = {}
        for k, v in data.items():
            try:
                converted[k] = value(v)
            except WireError as error:
                raise WireError(f"[{k}]{error}") from None
        return converted

    return read


def _exactly(kind: type, what: str) -> Reader:
    def read(data: Any) -> Any:
        if type(data) is not kind:
            raise WireError(f": expected {what}")
        return data

    return read


def _enum(kind: type[Enum]) -> Reader:
    members = {member.value: member for member in kind}

    def read(data: Any) -> Any:
        if not isinstance(data, (str, int)) or isinstance(data, bool) or data not in members:
            raise WireError(f": unknown {kind.__name__} {data!r}")
        return members[data]

    return read


def _instance(kind: type) -> Reader:
    def read(data: Any) -> Any:
        if not isinstance(data, kind):
            raise WireError(f": expected {kind.__name__}")
        return data

    return read
