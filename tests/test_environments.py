"""Every command works, or stops with one line and exit 2, in a hostile environment.

Each case runs normkata as a real subprocess: encodings, closed descriptors and file-system
permissions only behave for real outside the test process.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.faultkit import answers_in, assert_clean, environment, run, set_aside, write_bank

#: (name, extra environment): each must let the dashboard and a quiz run to the end.
WORKING = [
    ("C locale, UTF-8 mode off", {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": None}),
    ("ISO-8859-1", {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": "iso-8859-1"}),
    ("GB2312", {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": "gb2312"}),
    ("dumb terminal, 20 columns", {"TERM": "dumb", "COLUMNS": "20"}),
    ("unknown NORMKATA_LANG", {"NORMKATA_LANG": "klingon"}),
]


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", questions=3)


@pytest.mark.parametrize(("name", "extra"), WORKING, ids=[name for name, _ in WORKING])
def test_commands_work_in_a_hostile_terminal(tmp_path: Path, bank: Path, name: str, extra: dict) -> None:
    env = environment(tmp_path / "home", bank, **extra)
    for lang in ("en", "zh"):  # Chinese is what a Latin-1 or ASCII terminal cannot show
        quiz = run(["quiz", "-n", "2", "--seed", "1", "--lang", lang], env, "A\n\xe9\n")
        assert_clean(quiz, f"{name}: quiz --lang {lang}")
        assert quiz.returncode == 0
    dashboard = run([], env)
    assert_clean(dashboard, f"{name}: dashboard")
    assert dashboard.returncode == 0
    assert answers_in(tmp_path / "home" / "normkata.db") == 4
    if extra.get("NORMKATA_LANG") == "klingon":
        assert b"NORMKATA_LANG='klingon' is not a known language" in dashboard.stderr


def test_an_undecodable_answer_is_read_not_raised(tmp_path: Path, bank: Path) -> None:
    result = subprocess.run(
        [*_python_m(), "quiz", "-n", "1", "--seed", "1"],
        input=b"\xff\xfe\n",
        capture_output=True,
        env=environment(tmp_path / "home", bank),
        timeout=60,
    )
    assert_clean(result, "quiz with bytes that are not UTF-8")
    assert result.returncode == 0


def _python_m() -> list[str]:
    from tests.faultkit import command

    return command()


@pytest.mark.parametrize("args", [["quiz", "-n", "1"], ["interview", "-n", "1"], ["review"], []])
def test_closed_stdin_ends_input_cleanly(tmp_path: Path, bank: Path, args: list[str]) -> None:
    result = run(args, environment(tmp_path / "home", bank), stdin=None, prefix=["sh", "-c", 'exec "$@" <&-', "sh"])
    assert_clean(result, f"{args} <&-")
    assert result.returncode == 0


def test_no_home_variable_at_all(tmp_path: Path, bank: Path) -> None:
    env = environment(tmp_path / "home", bank, HOME=None, NORMKATA_HOME=None, XDG_DATA_HOME=str(tmp_path / "xdg"))
    quiz = run(["quiz", "-n", "1"], env, "A\n")
    assert_clean(quiz, "quiz without HOME")
    assert quiz.returncode == 0
    assert answers_in(tmp_path / "xdg" / "normkata" / "normkata.db") == 1


# -- read-only ---------------------------------------------------------------------------------


def _without_root_powers() -> list[str]:
    """A prefix that makes permissions bind: root ignores them unless it drops CAP_DAC_OVERRIDE."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: file permissions cannot be made to bind")
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}"]


def test_read_only_home(tmp_path: Path, bank: Path) -> None:
    prefix = _without_root_powers()
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        for args in ([], ["quiz", "-n", "1"], ["kata"]):
            result = run(args, environment(home, bank), "A\n", prefix=prefix)
            assert_clean(result, f"{args} in a read-only home")
            assert result.returncode == 2 and b"read-only" in result.stderr
        nested = run([], environment(home / "deeper", bank), prefix=prefix)
        assert_clean(nested, "a home that cannot be created")
        assert nested.returncode == 2 and b"Cannot create the folder" in nested.stderr
    finally:
        home.chmod(stat.S_IRWXU)
    assert list(home.iterdir()) == []


def test_read_only_database(tmp_path: Path, bank: Path) -> None:
    prefix = _without_root_powers()
    home = tmp_path / "home"
    env = environment(home, bank)
    assert run(["quiz", "-n", "2"], env, "A\nA\n").returncode == 0
    database = home / "normkata.db"
    database.chmod(stat.S_IRUSR)
    home.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        dashboard = run(["progress", "--json"], env, prefix=prefix)
        quiz = run(["quiz", "-n", "1"], env, "A\n", prefix=prefix)
    finally:
        home.chmod(stat.S_IRWXU)
        database.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert_clean(dashboard, "progress on a read-only database")
    assert dashboard.returncode == 0 and json.loads(dashboard.stdout)["totals"]["answers"] == 2  # reading works
    assert_clean(quiz, "quiz on a read-only database")
    assert quiz.returncode == 2 and b"is read-only" in quiz.stderr
    assert answers_in(database) == 2 and set_aside(home) == []


# -- full disk ---------------------------------------------------------------------------------

_FULL_DISK = r"""
set -u
mount -t tmpfs -o size=512k tmpfs "$DISK" || exit 90
export NORMKATA_HOME="$DISK/home"
printf 'A\nA\n' | "$@" quiz -n 2 --seed 1 >/dev/null 2>&1; echo "first=$?"
dd if=/dev/zero of="$DISK/filler" bs=4096 2>/dev/null
printf 'A\nA\n' | "$@" quiz -n 2 --seed 2 >"$DISK/../full.out" 2>"$DISK/../full.err"; echo "full=$?"
rm "$DISK/filler"
"$@" progress --json > "$DISK/../after.json" 2>&1; echo "after=$?"
ls "$DISK/home" > "$DISK/../listing"
"""


def test_full_disk(tmp_path: Path, bank: Path) -> None:
    """A real full file system: a tiny tmpfs, mounted in a mount namespace of the test's own."""
    unshare = shutil.which("unshare")
    if os.geteuid() != 0 or unshare is None:
        pytest.skip("mounting a tiny tmpfs needs root and unshare")
    disk = tmp_path / "disk"
    disk.mkdir()
    env = environment(tmp_path / "unused", bank, DISK=str(disk))
    from tests.faultkit import REPO, command

    script = subprocess.run(
        [unshare, "-m", "sh", "-c", _FULL_DISK, "sh", *command()],
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )
    if script.returncode == 90:
        pytest.skip(f"cannot mount a tmpfs here: {script.stderr.decode(errors='replace').strip()}")
    codes = dict(line.split("=") for line in script.stdout.decode().split())
    full = subprocess.CompletedProcess([], int(codes["full"]), b"", (tmp_path / "full.err").read_bytes())
    assert_clean(full, "quiz on a full disk")
    assert codes["first"] == "0" and codes["full"] == "2", codes
    assert b"is full" in full.stderr
    assert codes["after"] == "0"
    assert json.loads((tmp_path / "after.json").read_text())["totals"]["answers"] == 2
    assert "damaged" not in (tmp_path / "listing").read_text()
