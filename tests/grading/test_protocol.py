"""The runner's side of the worker pipe is bounded: a write, a read and a decode each stop at
their deadline, and a reply larger than MAX_MESSAGE is refused by its header, unread."""

from __future__ import annotations

import os
import pickle
import struct
import threading
import time

import pytest
import torch  # imported before any timing: encode() and decode() use it

from normkata.grading.protocol import MAX_MESSAGE, ChannelTimeout, MessageTooLarge, encode, receive, send

MAGIC = 0x1950A86A20F9469CFC6C  # torch.save's legacy (non-zip) stream
SYS_INFO = {"protocol_version": 1001, "little_endian": True, "type_sizes": {"short": 2, "int": 4, "long": 4}}


def _slow_message(items: int) -> bytes:
    """A valid torch.save stream whose pickle is `items` tiny list items: ~4 µs each to decode."""
    body = b"\x80\x02](" + b"K\x00" * items + b"e."
    payload = b"".join([pickle.dumps(MAGIC, 2), pickle.dumps(1001, 2), pickle.dumps(SYS_INFO, 2), body,
                        pickle.dumps([], 2)])  # fmt: skip
    return struct.pack("!Q", len(payload)) + payload


def test_a_write_to_a_reader_that_stopped_ends_at_the_deadline() -> None:
    read, write = os.pipe()
    os.set_blocking(write, False)
    try:
        started = time.monotonic()
        with pytest.raises(ChannelTimeout):
            send(write, {"data": b"x" * (1 << 20)}, timeout=0.3)  # a pipe holds 64 kB: nobody reads the rest
        assert time.monotonic() - started < 1.0
    finally:
        os.close(read)
        os.close(write)


def test_a_reply_over_the_cap_is_refused_by_its_header() -> None:
    read, write = os.pipe()
    try:
        os.write(write, struct.pack("!Q", 460 * 1024**2))  # 460 MB announced, nothing sent
        with pytest.raises(MessageTooLarge):
            receive(read, timeout=5)
        assert MAX_MESSAGE < 1024**3 // 8
    finally:
        os.close(read)
        os.close(write)


def test_decoding_stops_at_the_deadline() -> None:
    message = _slow_message(1_000_000)  # 2 MB, about 4 s of decoding
    read, write = os.pipe()
    thread = threading.Thread(target=os.write, args=(write, message))  # the pipe holds 64 kB: a writer
    thread.start()
    try:
        started = time.monotonic()
        with pytest.raises(ChannelTimeout):
            receive(read, timeout=0.5)
        assert time.monotonic() - started < 1.5
    finally:
        thread.join()
        os.close(read)
        os.close(write)


def test_an_ordinary_message_arrives_whole() -> None:
    read, write = os.pipe()
    os.set_blocking(write, False)
    try:
        sent = {"outputs": [torch.arange(6.0).reshape(2, 3)], "name": "ok"}
        send(write, sent, timeout=5)
        got = receive(read, timeout=5)
        assert got["name"] == "ok" and torch.equal(got["outputs"][0], sent["outputs"][0])
        assert len(encode(sent)) < MAX_MESSAGE
    finally:
        os.close(read)
        os.close(write)
