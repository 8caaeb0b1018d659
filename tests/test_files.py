"""normkata/files.py is the one way into files and folders someone else controls: no link followed,
regular files on regular file systems only (a file of /proc or /sys is refused, whatever size it
reports), the size bound held before and while reading, the reason said in the reader's language."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from normkata.files import Refused, open_folder, read_file, write_file
from tests.conftest import invoke

PACKAGE = Path(__file__).parents[1] / "normkata"
ENVIRON = Path("/proc/self/environ")
SYSFS = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def test_only_files_py_opens_without_following_links() -> None:
    """One module holds the guarded open: a second copy is how a fix to one missed the others."""
    holders = sorted(
        str(path.relative_to(PACKAGE.parent)) for path in PACKAGE.rglob("*.py") if "O_NOFOLLOW" in path.read_text()
    )
    assert holders == ["normkata/files.py"]


@pytest.mark.skipif(not ENVIRON.exists(), reason="needs Linux's /proc")
def test_a_file_of_procfs_is_refused_though_it_reports_no_size() -> None:
    assert ENVIRON.stat().st_size == 0  # what made a size check pass it
    with pytest.raises(Refused) as refused:
        read_file(ENVIRON, 1 << 20, follow_links=True)  # even where the person named the file
    assert str(refused.value) == (
        "/proc/self/environ is a file of procfs, not of a regular file system (its size says nothing of what it holds)"
    )
    assert (
        refused.value.in_("zh") == "/proc/self/environ 是 procfs 中的文件，不在普通文件系统上（它标明的大小与内容无关）"
    )


@pytest.mark.skipif(not SYSFS.exists(), reason="needs Linux's /sys")
def test_a_file_of_sysfs_is_refused() -> None:
    with pytest.raises(Refused, match="a file of sysfs"):
        read_file(SYSFS, 1 << 20, follow_links=True)


@pytest.mark.skipif(not ENVIRON.exists(), reason="needs Linux's /proc")
def test_progress_import_of_proc_environ_says_why_and_imports_nothing(runner) -> None:  # type: ignore[no-untyped-def]
    result = invoke(runner, ["progress", "import", str(ENVIRON)])
    assert result.exit_code == 2
    assert "a file of procfs, not of a regular file system" in result.stderr


@pytest.mark.skipif(not ENVIRON.exists(), reason="needs Linux's /proc")
def test_grade_refuses_proc_environ_in_the_learners_language(runner) -> None:  # type: ignore[no-untyped-def]
    result = invoke(runner, ["--lang", "zh", "grade", "rmsnorm", "--file", str(ENVIRON)])
    assert result.exit_code == 2
    assert (
        result.stderr == "Error: /proc/self/environ 是 procfs 中的文件，不在普通文件系统上（它标明的大小与内容无关）\n"
    )


def test_a_file_that_grows_past_the_bound_while_read_is_refused(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The bound is held while reading too: a file that reported 0 bytes when opened (a writer
    still at work, a file system that does not know) is cut off at the limit, not read whole."""
    path = tmp_path / "grows.json"
    path.write_bytes(b"x" * 100)
    real = os.fstat

    def reports_empty(fd: int) -> os.stat_result:
        info = real(fd)
        return os.stat_result((info.st_mode, *info[1:6], 0, *info[7:]))

    monkeypatch.setattr(os, "fstat", reports_empty)
    with pytest.raises(Refused) as refused:
        read_file(path, 10)
    assert str(refused.value) == f"{path} is larger than 10 bytes (100 bytes)"


def test_links_fifos_and_folders_are_named_in_both_languages(tmp_path: Path) -> None:
    target = tmp_path / "target.py"
    target.write_text("x = 1\n")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    with pytest.raises(Refused) as refused:
        read_file(link, 100)
    assert refused.value.in_("en") == f"{link} is a symbolic link, which is not followed"
    assert refused.value.in_("zh") == f"{link} 是符号链接，不会被跟随"
    assert read_file(link, 100, follow_links=True) == b"x = 1\n"  # a file the person named
    with pytest.raises(Refused) as refused:
        read_file(fifo, 100)  # answered at once: O_NONBLOCK
    assert refused.value.in_("zh") == f"{fifo} 是 FIFO，不是普通文件"
    with pytest.raises(Refused, match="is not a folder"):
        open_folder(target)
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder_link").symlink_to(tmp_path / "folder")
    with pytest.raises(Refused, match="is a symbolic link"):
        open_folder(tmp_path / "folder_link")
    with pytest.raises(Refused, match="is a symbolic link"):
        write_file(link, b"overwritten", replace=True)
    assert target.read_text() == "x = 1\n"
