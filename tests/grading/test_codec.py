"""The runner↔worker codec: what a grade sends arrives as it was sent, and bytes a hostile worker
crafts are refused with CodecError (which the runner reports as an unreadable reply), never
turned into a tensor that reads outside its bytes."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from normkata.grading.client import Grader
from normkata.grading.codec import MAX_TREE_BYTES, CodecError, decode, encode


def _payload(tree: object, storages: list[bytes]) -> bytes:
    """A message as a hostile worker could write it by hand."""
    text = json.dumps(tree).encode()
    sizes = json.dumps([len(s) for s in storages]).encode()
    return struct.pack("!I", len(text)) + text + struct.pack("!I", len(sizes)) + sizes + b"".join(storages)


def _tensor(**fields: object) -> dict[str, object]:
    return {"\x00": "tensor", "dtype": "float32", "shape": [2], "stride": [1], "offset": 0, "storage": 0, **fields}


def test_plain_values_tuples_and_text_arrive_as_sent() -> None:
    message = {
        "op": "run",
        "args": [8, (2, 3), ((1,), [])],
        "kwargs": {"eps": 1e-5, "flag": True, "none": None},
        "text": "中文 \ud800 \x1b[31m",
        "big": 2**70,
        "inf": float("inf"),
    }
    assert decode(encode(message)) == message
    assert decode(encode({"nan": float("nan")}))["nan"] != decode(encode({"nan": float("nan")}))["nan"]


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.bool]
)
def test_tensors_keep_dtype_values_and_shape(dtype: torch.dtype) -> None:
    x = (torch.randn(3, 4, 5) * 10).to(dtype)
    got = decode(encode({"x": x}))["x"]
    assert got.dtype == dtype and got.shape == x.shape and torch.equal(got, x)


def test_a_strided_view_keeps_its_gaps_and_views_share_their_storage() -> None:
    base = torch.full((4, 10), float("nan"))
    base[:, ::2] = torch.arange(20.0).reshape(4, 5)
    strided, tail = base[:, ::2], base[1:, ::2]
    got = decode(encode([strided, tail, torch.zeros(0, 3)]))
    assert got[0].stride() == (10, 2) and torch.equal(got[0], strided)
    assert torch.isnan(torch.empty(0).set_(got[0].untyped_storage())[1]), "the gap between columns did not cross"
    assert got[1].storage_offset() == 10 and got[0].untyped_storage().data_ptr() == got[1].untyped_storage().data_ptr()
    assert got[2].shape == (0, 3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=0, max_size=4), st.integers(0, 3), st.sampled_from(["float32", "int64"]))
def test_any_slice_of_any_shape_round_trips(shape: list[int], start: int, dtype: str) -> None:
    x = torch.arange(int(torch.tensor(shape).prod().item()) if shape else 1).reshape(shape).to(getattr(torch, dtype))
    view = x[start:] if x.dim() else x
    got = decode(encode(view))
    assert torch.equal(got, view) and got.stride() == view.stride()


def test_a_dict_with_the_reserved_key_is_not_sent() -> None:
    with pytest.raises(CodecError):
        encode({"\x00": "tensor"})


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (b"", "truncated"),
        (b"\x00\x00\x00\x05[1,2", "larger than allowed or than the message"),
        (struct.pack("!I", MAX_TREE_BYTES + 1) + b"[" * 10, "larger than allowed"),
        (_payload([1], [b"abcd"]) + b"efgh", "do not fill"),
        (_payload(_tensor(shape=[1000]), [b"\x00" * 8]), "outside its storage"),
        (_payload(_tensor(offset=1), [b"\x00" * 8]), "outside its storage"),
        (_payload(_tensor(storage=1), [b"\x00" * 8]), "outside its storage"),
        (_payload(_tensor(stride=[-1]), [b"\x00" * 8]), "unreadable shape"),
        (_payload(_tensor(shape=[True]), [b"\x00" * 8]), "unreadable shape"),
        (_payload(_tensor(shape=[2, 2]), [b"\x00" * 16]), "unreadable shape"),
        (_payload(_tensor(dtype="complex64"), [b"\x00" * 8]), "unknown dtype"),
        (_payload(_tensor(shape=[2**20, 2**20], stride=[0, 0]), [b"\x00" * 4]), "more elements than its storage"),
        (_payload({"\x00": "module", "path": "os.system"}, []), "unknown tag"),
        (_payload([1], []).replace(b"[1]", b"[1,"), "unreadable tree"),
    ],
    ids=[
        "empty",
        "short tree",
        "huge tree",
        "extra bytes",
        "reads past its storage",
        "offset past the end",
        "no such storage",
        "negative stride",
        "bool shape",
        "rank mismatch",
        "dtype not allowed",
        "repeats its bytes",
        "unknown tag",
        "not JSON",
    ],
)
def test_crafted_bytes_are_refused(payload: bytes, why: str) -> None:
    with pytest.raises(CodecError, match=why):
        decode(payload)


def test_deep_nesting_is_refused_not_a_crash() -> None:
    text = b"[" * 50_000 + b"]" * 50_000
    sizes = b"[]"
    with pytest.raises(CodecError):
        decode(struct.pack("!I", len(text)) + text + struct.pack("!I", len(sizes)) + sizes)


def test_the_tree_is_capped_so_decoding_is_bounded() -> None:
    """A reply's tree is read only up to MAX_TREE_BYTES (parsed by C's JSON reader, whatever its
    shape): the densest tree of that size decodes, one byte more is refused before it is parsed.
    (The deadline still stops a slow decode: test_protocol.)"""
    items = (MAX_TREE_BYTES - 2) // 5  # "[[]]," per item: the most lists a tree of that size can hold
    legal = ("[" + ",".join(["[[]]"] * items) + "]").encode()
    assert len(legal) <= MAX_TREE_BYTES
    assert len(decode(struct.pack("!I", len(legal)) + legal + struct.pack("!I", 2) + b"[]")) == items
    over = legal + b" " * (MAX_TREE_BYTES + 1 - len(legal))
    with pytest.raises(CodecError, match="larger than allowed"):
        decode(struct.pack("!I", len(over)) + over + struct.pack("!I", 2) + b"[]")


def test_the_worker_handle_loads_without_torch() -> None:
    """A one-off grade's runner imports the worker's handle (proxy, protocol, codec) and starts the
    worker before it imports torch itself: the two import torch side by side, on two cores. A
    handle that imported torch would make them take turns (0.8 s more per `normkata grade`)."""
    import subprocess
    import sys

    code = "import sys, normkata.grading.proxy; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


_RETURNS_COMPLEX = """
import torch


class RMSNorm(torch.nn.Module):
    def __init__(self, hidden_size, eps=1e-6, device=None, dtype=None):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return torch.complex(x.float(), x.float())
"""


def test_an_output_the_codec_cannot_carry_is_the_learners_error_not_a_crash(
    grading_service: Grader, tmp_path: Path
) -> None:
    """A complex tensor (no dtype the runner reads) fails its case with what was returned; the
    worker is not lost over it, so every later case still runs."""
    learner = tmp_path / "rmsnorm.py"
    learner.write_text(_RETURNS_COMPLEX, encoding="utf-8")
    result = grading_service.grade("rmsnorm", learner, seed=5)
    messages = [case.message for case in result.cases if case.status.value in ("failed", "error")]
    assert messages and not result.passed
    assert any("complex64" in message for message in messages), messages[:3]
    assert not any("died" in message or "too many times" in message for message in messages), messages[:3]
