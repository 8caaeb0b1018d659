"""`normkata content check` on files that are not a well-behaved bank: FILE:LINE: message, exit 2, never a crash."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import invoke
from tests.faultkit import environment, run

GOOD_START = b"format_version: 1\ntopic: t\n"

#: name -> (file bytes, expected line, words the message must hold)
HOSTILE: dict[str, tuple[bytes, int, str]] = {
    "NUL at the start": (b"\x00" + GOOD_START, 1, "binary data"),
    "control character": (GOOD_START + b"title: {en: a\x07b, zh: c}\n", 3, "#x0007"),
    "escape character": (GOOD_START + b"questions:\n  - id: \x1b[31mred\n", 4, "#x001b"),
    "binary file": (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), 3, "binary data"),  # the NUL after two newlines
    "Latin-1 text": (GOOD_START + b"title: {en: caf\xe9, zh: x}\n", 3, "not UTF-8 (byte 0xe9 at column 16)"),
    "GB2312 text": (GOOD_START + "title: {en: a, zh: 归一化}\n".encode("gb2312"), 3, "not UTF-8"),
    "UTF-16": ("format_version: 1\n".encode("utf-16"), 1, "UTF-16"),
    "huge integer": (GOOD_START + b"answer: 1" + b"0" * 5000 + b"\n", 3, "number too long"),
    "huge float": (GOOD_START + b"tolerance: 1.0e+999\n", 3, "number out of range"),
    "deep nesting": (GOOD_START + b"title: " + b"[" * 100_000 + b"]" * 100_000 + b"\n", 3, "nested more than"),
    "alias bomb": (
        GOOD_START
        + b"a: &a [x, x, x, x, x, x, x, x, x]\n"
        + b"".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n".encode() for i in range(9)
        ),
        4,
        "aliases (*a) are not allowed",
    ),
    "self-referencing alias": (GOOD_START + b"a: &a [*a]\n", 3, "aliases (*a)"),
    "python tag": (GOOD_START + b"x: !!python/object/apply:os.system [echo hi]\n", 3, "tags such as"),
    "two documents": (GOOD_START + b"---\ntopic: u\n", 3, "one document per file"),
    "impossible date": (GOOD_START + b"when: 2026-02-30\n", 3, "day is out of range"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_content_check_reports_file_and_line(runner, tmp_path: Path, monkeypatch, name: str) -> None:
    data, line, words = HOSTILE[name]
    (tmp_path / "bank.yaml").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    result = invoke(runner, ["content", "check", "bank.yaml"])
    assert result.exit_code == 2, result.output
    first = result.stderr.splitlines()[0]
    assert re.fullmatch(rf"bank\.yaml:{line}: .+", first), first
    assert words in first, first


def test_content_check_of_a_nul_file_in_a_real_process(tmp_path: Path) -> None:
    (tmp_path / "nul.yaml").write_bytes(b"\x00topic: x\n")
    result = run(["content", "check", str(tmp_path / "nul.yaml")], environment(tmp_path / "home"))
    assert result.returncode == 2 and b"Traceback" not in result.stderr
    assert (
        result.stderr.decode()
        .splitlines()[0]
        .endswith("nul.yaml:1: binary data (a NUL byte): a question bank is UTF-8 text")
    )
