"""The bytes of one runner↔worker message: a JSON tree of plain values and the tensors' raw bytes.

    payload = u32 length | tree (JSON) | u32 length | storage sizes (JSON) | each storage's bytes

The tree holds what `wire.to_wire` makes (dicts with string keys, lists, strings, numbers, bools,
None) plus two tagged forms: a tuple, and a tensor (dtype, shape, stride, offset, and which
storage it views, so views of one storage stay views and the gaps of a strided input cross too).

Decoding runs no code of the sender's: JSON, then each tensor checked (a dtype from a fixed list,
shapes and strides that stay inside their storage, storages that add up to the payload) before
it is made. A hostile worker can send only wrong values, which `wire.from_wire` then refuses.
It replaces torch.save/torch.load(weights_only=True), which zip each message and unpickle it in
Python: 5-10x slower on the few-kB messages of a grade, on both sides of every case.
"""

from __future__ import annotations

import functools
import json
import math
import struct
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    import torch

_TREE_LENGTH = struct.Struct("!I")
#: The tree is small (tensors travel beside it): a reply's tree beyond this is refused unread.
MAX_TREE_BYTES = 1024 * 1024
#: The key of a tagged form. A dict that has it is refused by `encode`, so none is mistaken for one.
_TAG = "\x00"
#: The dtypes a tensor may have, by name.
DTYPE_NAMES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")


@functools.cache
def _itemsizes() -> dict[str, tuple[torch.dtype, int]]:
    """Each allowed dtype and its size in bytes. Made on first use: a one-off grade's runner
    imports this module before it starts the worker, and must not wait for torch to do so (the
    two import torch side by side)."""
    import torch

    return {name: (getattr(torch, name), getattr(torch, name).itemsize) for name in DTYPE_NAMES}


class CodecError(ValueError):
    """The bytes are not a message this codec writes."""


def encode(value: Any) -> bytes:
    """The payload for `value` (built from plain values, tuples and CPU tensors)."""
    import torch

    storages: list[bytes] = []
    index: dict[tuple[int, int], int] = {}  # (data pointer, bytes) -> storage number
    # Copies made here (of a GPU tensor) live until the end: freed, a later copy could take the
    # same address and be written as a view of the earlier one.
    copies: list[torch.Tensor] = []

    def tree(item: Any) -> Any:
        if item is None or isinstance(item, (str, bool, int, float)):
            return item
        if isinstance(item, list):
            return [tree(v) for v in item]
        if isinstance(item, dict):
            if _TAG in item:
                raise CodecError("a dict key is reserved for the codec")
            return {str(k): tree(v) for k, v in item.items()}
        if isinstance(item, tuple):
            return {_TAG: "tuple", "items": [tree(v) for v in item]}
        if isinstance(item, torch.Tensor):
            return tensor(item)
        raise CodecError(f"cannot send a {type(item).__name__}")

    def tensor(item: torch.Tensor) -> dict[str, Any]:
        item = item.detach()
        if item.device.type != "cpu":
            item = item.cpu()
            copies.append(item)
        dtype = str(item.dtype).removeprefix("torch.")
        if dtype not in DTYPE_NAMES:
            raise CodecError(f"cannot send a {dtype} tensor")
        storage = item.untyped_storage()
        key = (storage.data_ptr(), storage.nbytes())
        if key not in index:
            index[key] = len(storages)
            raw = torch.empty(0, dtype=torch.uint8).set_(storage)
            storages.append(raw.numpy().tobytes())
        return {
            _TAG: "tensor",
            "dtype": dtype,
            "shape": list(item.shape),
            "stride": list(item.stride()),
            "offset": item.storage_offset(),
            "storage": index[key],
        }

    # ASCII: a hostile worker's message may hold lone surrogates, which UTF-8 cannot carry.
    text = json.dumps(tree(value), separators=(",", ":")).encode("ascii")
    sizes = json.dumps([len(s) for s in storages]).encode("ascii")
    return _TREE_LENGTH.pack(len(text)) + text + _TREE_LENGTH.pack(len(sizes)) + sizes + b"".join(storages)


def decode(payload: bytes) -> Any:
    """The value `encode` wrote; CodecError for anything else."""
    view = memoryview(payload)
    text, view = _part(view)
    sizes_text, view = _part(view)
    try:
        sizes = json.loads(bytes(sizes_text))
        tree = json.loads(bytes(text))
    except (ValueError, RecursionError) as error:
        raise CodecError(f"unreadable tree: {type(error).__name__}") from None
    if not isinstance(sizes, list) or not all(isinstance(n, int) and n >= 0 for n in sizes):
        raise CodecError("unreadable storage sizes")
    if sum(sizes) != len(view):
        raise CodecError("the storages do not fill the message")
    import torch

    raw: list[torch.Tensor] = []
    start = 0
    for size in sizes:
        chunk = bytearray(view[start : start + size])
        raw.append(torch.frombuffer(chunk, dtype=torch.uint8) if size else torch.empty(0, dtype=torch.uint8))
        start += size
    try:
        return _value(tree, raw)
    except RecursionError:
        raise CodecError("too deeply nested") from None


def _part(view: memoryview) -> tuple[memoryview, memoryview]:
    if len(view) < _TREE_LENGTH.size:
        raise CodecError("truncated")
    (length,) = _TREE_LENGTH.unpack(view[: _TREE_LENGTH.size])
    if length > MAX_TREE_BYTES or _TREE_LENGTH.size + length > len(view):
        raise CodecError("the tree is larger than allowed or than the message")
    end = _TREE_LENGTH.size + length
    return view[_TREE_LENGTH.size : end], view[end:]


def _value(item: Any, raw: list[torch.Tensor]) -> Any:
    if isinstance(item, list):
        return [_value(v, raw) for v in item]
    if not isinstance(item, dict):
        return item
    tag = item.get(_TAG)
    if tag is None:
        return {k: _value(v, raw) for k, v in item.items()}
    if tag == "tuple" and isinstance(item.get("items"), list):
        return tuple(_value(v, raw) for v in item["items"])
    if tag == "tensor":
        return _tensor(item, raw)
    raise CodecError(f"unknown tag {tag!r}")


def _tensor(item: dict[str, Any], raw: list[torch.Tensor]) -> torch.Tensor:
    import torch

    dtype, itemsize = _itemsizes().get(str(item.get("dtype")), (None, 0))
    shape, stride, offset, number = item.get("shape"), item.get("stride"), item.get("offset"), item.get("storage")
    if dtype is None or not _naturals(shape) or not _naturals(stride) or len(shape) != len(stride):
        raise CodecError("a tensor with an unknown dtype or an unreadable shape")
    if not isinstance(offset, int) or offset < 0 or not isinstance(number, int) or not 0 <= number < len(raw):
        raise CodecError("a tensor outside its storage")
    if 0 in shape:
        return torch.empty(shape, dtype=dtype)
    last = offset + sum((size - 1) * step for size, step in zip(shape, stride, strict=True))
    storage = raw[number]
    if (last + 1) * itemsize > storage.numel():
        raise CodecError("a tensor outside its storage")
    if math.prod(shape) * itemsize > storage.numel():
        # More elements than bytes to hold them: a view that repeats its storage (stride 0), which
        # anything that reads it whole would blow up (2**40 elements from 4 bytes). Nothing the
        # grader sends or the worker returns overlaps itself.
        raise CodecError("a tensor with more elements than its storage holds")
    return torch.empty(0, dtype=dtype).set_(storage.untyped_storage(), offset, shape, stride)


def _naturals(values: Any) -> TypeGuard[list[int]]:
    return isinstance(values, list) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values)
