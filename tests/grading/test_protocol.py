"""The runner's side of the worker pipe is bounded: a write, a read and a decode each stop at
their deadline, and a reply larger than MAX_MESSAGE is refused by its header, unread."""

from __future__ import annotations

import os
import struct
import time

import pytest
import torch  # imported before any timing: encode() and decode() use it

from normkata.grading import protocol
from normkata.grading.protocol import MAX_MESSAGE, ChannelTimeout, MessageTooLarge, encode, receive, send


def test_a_write_to_a_reader_that_stopped_ends_at_the_deadline() -> None:
    read, write = os.pipe()
    os.set_blocking(write, False)
    try:
        started = time.monotonic()
        with pytest.raises(ChannelTimeout):
            send(write, {"data": "x" * (1 << 20)}, timeout=0.3)  # a pipe holds 64 kB: nobody reads the rest
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


def test_decoding_stops_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoding is bounded by the codec (a capped tree, read in C); should it ever be slow, the
    deadline still stops it: here a decode that would take 4 s."""

    def slow_decode(payload: bytes) -> object:
        until = time.monotonic() + 4  # timed, not counted: a counted loop is quick on a fast machine
        while time.monotonic() < until:
            pass
        return None

    monkeypatch.setattr(protocol.codec, "decode", slow_decode)
    message = protocol.encode({"outputs": []})
    read, write = os.pipe()
    os.write(write, message)
    try:
        started = time.monotonic()
        with pytest.raises(ChannelTimeout):
            receive(read, timeout=0.05)
        assert time.monotonic() - started < 1.5
    finally:
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
