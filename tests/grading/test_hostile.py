"""Hostile submissions (hostile_v2/: a wrong RMSNorm plus one trick each) against the real grader.

Each is graded from a throwaway copy of the package and its content, with a progress database,
a workspace holding another kata and a results.json in the current folder. Every one must end
as a failure within the budget, leave no process behind and change no file outside its
scratch folder: not the installation, not site-packages, not the workspace, not the database
beyond the attempt it records. The tricks aimed at the command line itself (its database, its
results file, its process) go through `normkata grade --file`; the others through the grading
service that `watch` and `grade-all` use, whose zygote-forked workers must hold as well.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from normkata.grading.client import Grader
from normkata.grading.sandbox import descendants
from normkata.paths import content_root
from tests.conftest import Database

HERE = Path(__file__).parent / "hostile_v2"
HOSTILE = sorted(p for p in HERE.glob("*.py") if p.read_text(encoding="utf-8").startswith("# expect: fail"))
#: Tricks aimed at the CLI process, its database or its output file: graded end to end.
THROUGH_THE_CLI = {
    "deletes_quiz_history",
    "writes_progress_db",
    "rewrites_results_after_exit",
    "stops_runner_rewrites_results",
    "signals_runner",
    "overwrites_workspace",
}
#: The whole command, torch start-up included: the grade's own budget is far below it.
CEILING_S = 240

pytestmark = pytest.mark.slow

#: The case timeout the service grades these with: a wrong RMSNorm needs milliseconds a case, and
#: a trick that sleeps in forward past it (signal_handler_tricks) is stopped at each case's
#: deadline, so the grade's length is a few of these.
SERVICE_CASE_TIMEOUT_S = 1.5
#: Tricks that need longer to do their harm: printing 1 GiB at import takes more than 1.5 s, and
#: the output cap must be reached, not the import's deadline.
SLOWER_TO_FAIL_S = {"prints_one_gib": 3.0}
#: Tricks whose every case stays just under its deadline: the grade's budget must end them (a
#: few cases' worth here; the default would be a minute).
ENDED_BY_THE_BUDGET_S = {"slow_loris_forward": 5.0}


@pytest.fixture(scope="module")
def installation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """normkata and its content, copied: a tampering trick could only ever change this copy."""
    root = tmp_path_factory.mktemp("install")
    package = Path(__file__).resolve().parents[2] / "normkata"
    shutil.copytree(package, root / "normkata", ignore=shutil.ignore_patterns("__pycache__", "_content"))
    for folder in ("katas", "solutions", "quizzes"):
        shutil.copytree(content_root() / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _tree_hash(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _site_packages() -> set[str]:
    folder = Path(sysconfig.get_paths()["purelib"])
    return {p.name for p in folder.iterdir()}


def _survivors(marker: str) -> list[str]:
    """Processes running the throwaway copy, except this test process's own (the module's
    grading service and its zygote): a survivor of a CLI grade is never our descendant, as
    the CLI process that started it has exited."""
    ours = {*descendants(os.getpid()), os.getpid()}
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) not in ours:
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in command:
                found.append(command[:200])
    return found


def _normkata(installation: Path, args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from normkata.cli import main; main()", *args]
    full_env = {**os.environ, **env, "PYTHONPATH": str(installation), "COLUMNS": "100"}
    return subprocess.run(
        command, capture_output=True, text=True, env=full_env, cwd=cwd, timeout=CEILING_S, stdin=subprocess.DEVNULL
    )


def assert_nothing_outlived_the_grade(grader: Grader) -> None:
    """The runner's descendants are its own processes (the zygote, its resource tracker and the
    next grade's spare worker, forked after the reply) and nothing else. The runner adopts
    orphans, so a detached child is among its descendants: none left, none to write later. Its
    own are asked for first: the runner answers only once it has forked the spare."""
    assert grader.pid is not None
    own = set(grader.processes())
    assert set(descendants(grader.pid)) == own, "a process outlived the grade"


@pytest.fixture(scope="module")
def service(installation: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Grader, Path]]:
    """A grading service running the throwaway copy, with a database and a workspace of its own."""
    home, workspace = tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("workspace")
    env = {"NORMKATA_HOME": str(home), "NORMKATA_WORKSPACE": str(workspace), "NORMKATA_LANG": "en"}
    assert _normkata(installation, ["kata", "layernorm"], env, tmp_path_factory.mktemp("cwd")).returncode == 0
    with Grader(package_parent=installation, env=env) as running:
        yield running, home


@pytest.mark.parametrize("submission", [p for p in HOSTILE if p.stem not in THROUGH_THE_CLI], ids=lambda p: p.stem)
def test_hostile_submission_fails_in_the_service_and_harms_nothing(
    submission: Path, installation: Path, service: tuple[Grader, Path], tmp_path: Path
) -> None:
    grader, home = service
    assert grader.pid is not None
    learner = tmp_path / "rmsnorm.py"
    shutil.copy(submission, learner)
    (tmp_path / "results.json").write_text('{"score": 0}\n')
    before = {
        "installation": _tree_hash(installation),
        "home": _tree_hash(home),
        "cwd": _tree_hash(tmp_path),
        "site-packages": _site_packages(),
    }
    timeout = SLOWER_TO_FAIL_S.get(submission.stem, SERVICE_CASE_TIMEOUT_S)
    budget = ENDED_BY_THE_BUDGET_S.get(submission.stem)
    result = grader.grade("rmsnorm", learner, timeout=timeout, budget=budget).to_json()
    assert not result["passed"] and result["sandbox"]
    if budget is not None:
        assert any("the time budget for this grade is used up" in c["message"] for c in result["cases"])
    shown = json.dumps(result, ensure_ascii=False)
    assert "\x1b" not in shown and "\ud800" not in shown
    assert grader.pid is not None, "the service died"
    assert_nothing_outlived_the_grade(grader)
    time.sleep(0.1)  # a write already under way when the grade ended has landed
    assert not _site_packages() - before["site-packages"]
    assert _tree_hash(installation) == before["installation"], "the installation changed"
    assert _tree_hash(home) == before["home"], "the progress database changed"
    assert _tree_hash(tmp_path) == before["cwd"], "the learner's folder changed"


@pytest.mark.parametrize("submission", [p for p in HOSTILE if p.stem in THROUGH_THE_CLI], ids=lambda p: p.stem)
def test_hostile_submission_fails_and_harms_nothing(submission: Path, installation: Path, tmp_path: Path) -> None:
    home, workspace, cwd = tmp_path / "home", tmp_path / "workspace", tmp_path / "cwd"
    cwd.mkdir()
    env = {"NORMKATA_HOME": str(home), "NORMKATA_WORKSPACE": str(workspace), "NORMKATA_LANG": "en"}
    assert _normkata(installation, ["kata", "layernorm"], env, cwd).returncode == 0  # a workspace file, a database
    learner = cwd / "rmsnorm.py"
    shutil.copy(submission, learner)
    (cwd / "results.json").write_text('{"score": 0}\n')
    before = {
        "installation": _tree_hash(installation),
        "workspace": _tree_hash(workspace),
        "cwd": _tree_hash(cwd),
        "site-packages": _site_packages(),
    }
    database = Database(home / "normkata.db")
    events_before = database.execute("SELECT COUNT(*) FROM kata_events").fetchone()[0]
    started = time.monotonic()
    run = _normkata(installation, ["grade", "rmsnorm", "--file", str(learner), "--json", "--timeout", "3"], env, cwd)
    took = time.monotonic() - started
    new_packages = _site_packages() - before["site-packages"]
    assert run.returncode == 1, (run.returncode, run.stderr[-500:])
    result = json.loads(run.stdout)
    assert not result["passed"] and result["sandbox"]
    assert "\x1b" not in run.stdout and "\ud800" not in run.stdout
    assert took < CEILING_S
    time.sleep(0.5)  # a detached child that meant to write after the grade has had its chance
    assert not _survivors(str(installation)), "a process outlived the grade"
    assert not new_packages, f"site-packages gained {new_packages}"
    assert _tree_hash(installation) == before["installation"], "the installation changed"
    assert _tree_hash(workspace) == before["workspace"], "the workspace changed"
    assert _tree_hash(cwd) == before["cwd"], "the current folder changed"
    assert database.execute("SELECT COUNT(*) FROM kata_events").fetchone()[0] == events_before
    attempts = database.execute("SELECT COUNT(*), MAX(passed) FROM kata_attempts WHERE kata = 'rmsnorm'").fetchone()
    assert tuple(attempts) == (1, 0)


def _metadata(folder: Path) -> dict[str, tuple[object, ...]]:
    """Mode, owner, times (not atime: reading is allowed) and extended attributes of everything
    under `folder`, the folder included."""
    found: dict[str, tuple[object, ...]] = {}
    for path in [folder, *sorted(folder.rglob("*"))]:
        info = path.lstat()
        try:
            xattrs = tuple(sorted(os.listxattr(path, follow_symlinks=False)))
        except OSError:
            xattrs = ()
        found[str(path.relative_to(folder))] = (
            info.st_mode,
            info.st_uid,
            info.st_gid,
            info.st_mtime_ns,
            info.st_ctime_ns,
            xattrs,
        )
    return found


def test_metadata_outside_scratch_cannot_change(
    installation: Path, service: tuple[Grader, Path], tmp_path: Path
) -> None:
    """chmod, chown, utime and setxattr, by path and by descriptor, on the class folder, a
    classmate's file, the installation, the progress store and the workspace: all refused."""
    grader, home = service
    folder = tmp_path / "class"
    (folder / "mallory").mkdir(parents=True)
    shutil.copy(HERE / "changes_metadata.py", folder / "mallory" / "rmsnorm.py")
    (folder / "bob.py").write_text("# a classmate's file\n")
    workspace = Path(grader.extra_env["NORMKATA_WORKSPACE"])
    watched = {"class": folder, "installation": installation, "home": home, "workspace": workspace}
    time.sleep(0.05)  # a change within the same clock tick as the set-up would still show
    before = {name: _metadata(path) for name, path in watched.items()}
    result = grader.grade("rmsnorm", folder / "mallory" / "rmsnorm.py", timeout=3).to_json()
    assert not result["passed"] and result["sandbox"] == "full"
    for name, path in watched.items():
        after = _metadata(path)
        changed = sorted(k for k in after if after[k] != before[name].get(k))
        assert not changed, f"{name}: metadata changed for {changed[:5]}"


#: Submissions aimed at the pipe between runner and worker, and at the grade's budget.
PIPE_AND_BUDGET = sorted((Path(__file__).parent / "hostile_v3").glob("*.py"))


def _huge_reply_timing() -> tuple[float, float]:
    """(case timeout, budget) for the 460 MB reply, from what building one costs here now: the
    worker must finish building it inside its case, or the case times out and the size check goes
    untested. Idle, a build takes about 0.2 s (3 s cases); on a machine busy with other work it
    takes longer, and the deadline grows with it rather than failing the test."""
    import torch

    started = time.perf_counter()
    reply = torch.zeros(115_000_000, dtype=torch.float32)
    reply.numpy().tobytes()[:1]  # the worker's encode reads every byte once
    built = time.perf_counter() - started
    del reply
    timeout = max(3.0, 12 * built)
    return timeout, 4 * timeout


#: How each is graded (case timeout s, budget s) and what some case's message must say: the
#: budgets are far below the ceilings these used to reach, with room for a worker to start on a
#: loaded machine and for several cases, so that the budget, not a case deadline, ends the
#: burner (it spins just under 1 s in every forward).
PIPE_AND_BUDGET_GRADING = {
    "burns_its_budget": (1.0, 6.0, "the time budget for this grade is used up"),
    "forges_a_kernel_finding": (1.0, 6.0, "sent something unreadable (WireError)"),
    "returns_huge_tensor": (None, None, "sent a reply larger than 64 MB"),  # timed by _huge_reply_timing
    "slow_to_decode_reply": (1.0, 6.0, "sent something unreadable (CodecError)"),
    "stops_reading_requests": (1.0, 6.0, "timed out after 1 s"),
}


def _peak_memory(pid: int) -> int:
    """The process's peak resident memory (VmHWM) in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmHWM for {pid}")


@pytest.mark.parametrize("submission", PIPE_AND_BUDGET, ids=lambda p: p.stem)
def test_pipe_and_budget_attacks_end_within_the_budget_and_bounded_memory(
    submission: Path, installation: Path, service: tuple[Grader, Path], tmp_path: Path
) -> None:
    """A worker that stops reading, a huge or slow-to-decode reply, a submission that burns its
    budget: each grade ends within its budget, the runner stays under 1 GiB, nothing survives."""
    grader, _ = service
    assert grader.pid is not None
    learner = tmp_path / "rmsnorm.py"
    shutil.copy(submission, learner)
    before = _tree_hash(installation)
    started = time.monotonic()
    timeout, budget, said = PIPE_AND_BUDGET_GRADING[submission.stem]
    if timeout is None or budget is None:
        timeout, budget = _huge_reply_timing()
    result = grader.grade("rmsnorm", learner, timeout=timeout, budget=budget).to_json()
    took = time.monotonic() - started
    assert not result["passed"] and result["sandbox"] == "full"
    assert any(said in case["message"] for case in result["cases"]), [c["message"] for c in result["cases"]][:5]
    assert result["duration_s"] <= budget and took <= budget + 1.5, (result["duration_s"], took)
    assert grader.pid is not None, "the service died"
    assert _peak_memory(grader.pid) < 1024**3, "the runner went over 1 GiB"
    time.sleep(0.2)
    assert_nothing_outlived_the_grade(grader)
    assert _tree_hash(installation) == before
