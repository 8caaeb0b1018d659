"""`doctor` and `content check` open files without blocking on special files and check sizes
before reading: a FIFO in the database's place, a FIFO or a sparse 1.5 GB file
given as a bank, each answered in seconds with one line, bounded memory, nothing moved; each
control (the ordinary file) as before.
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from normkata.errors import InputError
from normkata.record.store import Store, StoreError
from tests.conftest import invoke
from tests.test_doctor import doctor_json

REPOSITORY = Path(__file__).parents[1]
FULL = {"level": "full", "active": ["no_new_privs", "filesystem (Landlock ABI 5)"], "missing": []}


@pytest.fixture
def confined(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox probe answers as a fully confined machine would: only storage is looked at here."""
    monkeypatch.setattr("normkata.advice.doctor.probe_confinement", lambda: dict(FULL))


def within(seconds: float, call: Callable[[], Any]) -> Any:
    """`call()`'s result, failing (not hanging) when it takes longer than `seconds`."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001  raised again in the test's own thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s: it waits on a special file"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@pytest.fixture
def fifo_database(isolated_home: Path) -> Path:
    isolated_home.mkdir(parents=True)
    path = isolated_home / "normkata.db"
    os.mkfifo(path)
    return path


# -- the database ---------------------------------------------------------------------------------------


def test_doctor_with_a_fifo_for_a_database_answers_at_once(runner, confined, fifo_database: Path) -> None:  # type: ignore[no-untyped-def]
    code, report = within(60, lambda: doctor_json(runner, "--no-katas"))
    assert code == 1
    assert report["storage"]["database_check"] == "not a database file"
    (problem,) = report["problems"]
    assert problem["what"] == (
        f"progress database: {fifo_database} is a FIFO, not a database: move it away, or set "
        "NORMKATA_HOME to another folder."
    )
    assert stat.S_ISFIFO(os.stat(fifo_database).st_mode)  # diagnosed, not moved


def test_control_doctor_checks_an_ordinary_database(runner, confined, isolated_home: Path) -> None:  # type: ignore[no-untyped-def]
    Store(isolated_home / "normkata.db").close()
    code, report = doctor_json(runner, "--no-katas")
    assert code == 0 and report["storage"]["database_check"] == "ok"


def test_the_store_refuses_a_fifo_by_the_same_check(fifo_database: Path) -> None:
    with pytest.raises(StoreError, match=r"is a FIFO, not a database: move it away"):
        within(10, lambda: Store(fifo_database))


def test_every_command_says_so_in_one_line(runner, fifo_database: Path) -> None:  # type: ignore[no-untyped-def]
    result = within(30, lambda: invoke(runner, ["progress"]))
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: {fifo_database} is a FIFO, not a database: move it away, or set NORMKATA_HOME to another folder.\n"
    )


def test_a_fifo_where_the_bank_cache_is_kept_is_no_cache(runner, isolated_home: Path) -> None:  # type: ignore[no-untyped-def]
    from normkata.content import cache
    from normkata.paths import quizzes_dir

    assert invoke(runner, ["progress"]).exit_code == 0  # writes the cache
    path = cache.file_for(quizzes_dir())
    path.unlink()
    os.mkfifo(path)
    assert within(30, lambda: invoke(runner, ["progress"])).exit_code == 0


# -- content check ----------------------------------------------------------------------------------------


def test_content_check_of_a_sparse_1_5_gb_file_checks_the_size_first(runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "huge.yaml"
    with path.open("wb") as stream:
        stream.truncate(1500 * 2**20)  # sparse: no disk, and 1.5 GB of memory had it been read
    tracemalloc.start()
    started = time.perf_counter()
    try:
        result = invoke(runner, ["content", "check", str(path)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 10
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MiB allocated"
    assert result.exit_code == 2
    assert f"{path}:1: file too large (1572864000 bytes; a question bank is well under 8388608)" in result.stderr


def test_content_check_of_a_fifo_answers_at_once(runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bank.yaml"
    os.mkfifo(path)
    result = within(30, lambda: invoke(runner, ["content", "check", str(path)]))
    assert result.exit_code == 2 and f"{path}:1: a FIFO, not a regular file" in result.stderr


def test_control_content_check_of_an_ordinary_bank_file(runner) -> None:  # type: ignore[no-untyped-def]
    result = invoke(runner, ["content", "check", str(REPOSITORY / "quizzes" / "rmsnorm.yaml")])
    assert result.exit_code == 0, result.output


def test_a_kata_yaml_that_is_a_fifo_is_a_content_issue(tmp_path: Path) -> None:
    from normkata.content.katas import read_kata

    folder = tmp_path / "katas" / "fifo_kata"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "kata.yaml")
    with pytest.raises(InputError, match="a FIFO, not a regular file"):
        within(10, lambda: read_kata("fifo_kata", tmp_path / "katas"))


def test_a_progress_file_is_read_by_the_same_reader(tmp_path: Path) -> None:
    """progress import sizes its file the same way (normkata.content.reading)."""
    from normkata.record.transfer import TransferError, read_document

    path = tmp_path / "progress.json"
    path.write_text(json.dumps({"format": "normkata-progress"}))
    assert read_document(path) == {"format": "normkata-progress"}
    os.truncate(path, 2**40)  # a terabyte, sparse
    with pytest.raises(TransferError, match=r"larger than 64 MiB \(1099511627776 bytes\)"):
        read_document(path)
