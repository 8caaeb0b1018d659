"""The parsed-bank cache: read back while nothing changed, never trusted when anything did,
and never a reason to fail (corrupt, planted, unwritable or raced-for cache files)."""

from __future__ import annotations

import marshal
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from normkata.content import bank as bank_module
from normkata.content import cache
from normkata.content.bank import load_bank as load_in_this_process
from normkata.content.model import Bank
from tests.conftest import FIXTURES


def load_bank(folder: Path) -> Bank:
    """The bank as a new process loads it: what this process loaded before is forgotten, so each
    load goes to the cache on disk (what these tests are about)."""
    bank_module._LOADED.clear()
    return load_in_this_process(folder)


def test_one_process_loads_a_bank_once(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A quiz asks for the bank three times: the cache file is read once."""
    first = load_bank(folder)
    monkeypatch.setattr(cache, "read", lambda *args: pytest.fail("read the cache file again"))
    assert load_in_this_process(folder) is first
    (folder / "mini.yaml").write_text((folder / "mini.yaml").read_text(encoding="utf-8") + "\n", encoding="utf-8")
    monkeypatch.undo()
    assert load_in_this_process(folder) == first  # a changed file is a new key: read again


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    copy = tmp_path / "bank"
    shutil.copytree(FIXTURES / "good", copy)
    return copy


def _parsing_forbidden(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(path: Path) -> None:
        raise AssertionError("parsed although the cache was valid")

    monkeypatch.setattr(bank_module, "load_bank_checked", fail)


def _cache_file(folder: Path) -> Path:
    files = list(cache.cache_dir().glob("bank-*.marshal"))
    assert len(files) == 1, files
    return files[0]


def test_an_unchanged_bank_is_read_from_the_cache(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = load_bank(folder)
    _parsing_forbidden(monkeypatch)
    assert load_bank(folder) == parsed


def test_an_edited_file_is_parsed_again(folder: Path) -> None:
    load_bank(folder)
    mini = folder / "mini.yaml"
    mini.write_text(mini.read_text(encoding="utf-8").replace("Pick B.", "Pick the second."), encoding="utf-8")
    assert load_bank(folder).question("mini-single").prompt.en == "Pick the second."  # type: ignore[union-attr]


def test_a_new_topic_file_is_picked_up(folder: Path) -> None:
    assert set(load_bank(folder).topics) == {"mini"}
    text = (folder / "mini.yaml").read_text(encoding="utf-8")
    other = text.replace("topic: mini", "topic: other").replace("id: mini-", "id: other-")
    (folder / "other.yaml").write_text(other, encoding="utf-8")
    assert set(load_bank(folder).topics) == {"mini", "other"}
    (folder / "other.yaml").unlink()
    assert set(load_bank(folder).topics) == {"mini"}


def test_a_broken_file_is_reported_not_served_from_the_cache(folder: Path) -> None:
    from normkata.errors import InputError

    load_bank(folder)
    (folder / "mini.yaml").write_text("format_version: 1\ntopic: [", encoding="utf-8")
    with pytest.raises(InputError, match="mini.yaml"):
        load_bank(folder)


@pytest.mark.parametrize(
    "content",
    [b"", b"garbage", b"\x00" * 64, "truncated"],
    ids=["empty", "garbage", "zeros", "truncated"],
)
def test_a_corrupt_cache_file_falls_back_to_parsing(folder: Path, content: bytes | str) -> None:
    expected = load_bank(folder)
    path = _cache_file(folder)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if content == "truncated" else content)  # type: ignore[arg-type]
    assert load_bank(folder) == expected
    assert path.read_bytes() == data  # and the cache is written again


def test_a_planted_cache_file_runs_nothing(folder: Path, tmp_path: Path) -> None:
    expected = load_bank(folder)
    path = _cache_file(folder)
    key = path.read_bytes()[:20]
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (marker.touch, ())  # type: ignore[return-value]

    code = compile(f"open({str(marker)!r}, 'w')", "planted", "exec")
    for planted in (
        pickle.dumps(Payload()),
        marshal.dumps(([{"__": "system", "command": "true"}], [code], [], [])),
    ):
        path.write_bytes(key + planted)
        assert load_bank(folder) == expected
        assert not marker.exists()


def test_an_unwritable_cache_folder_is_no_error(folder: Path, isolated_home: Path) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "cache").write_text("a file where the folder should be")
    assert set(load_bank(folder).topics) == {"mini"}
    assert set(load_bank(folder).topics) == {"mini"}


def test_processes_racing_for_one_cache_all_load_the_bank(folder: Path) -> None:
    probe = f"from normkata.content.bank import load_bank; print(len(load_bank(__import__('pathlib').Path({str(folder)!r})).questions))"
    runs = [subprocess.Popen([sys.executable, "-c", probe], stdout=subprocess.PIPE, text=True) for _ in range(4)]
    outputs = [run.communicate(timeout=60)[0].strip() for run in runs]
    assert [run.returncode for run in runs] == [0] * 4
    assert outputs == ["5"] * 4
    assert not [p for p in cache.cache_dir().iterdir() if p.suffix == ".tmp"]  # no half-written leftovers
