"""`normkata doctor`: what is installed, what protects a grade, where progress lives, and proof
that grading works here (every kata's reference passes and its starter fails).

This module gathers facts and finds problems; `commands/doctor.py` shows them. Every problem
carries what to do about it. Nothing here changes the learner's files or progress.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from normkata.i18n import Text

#: What a missing core protection means for the person grading (SandboxLevel's CORE names).
PROTECTION_MEANS: dict[str, Text] = {
    "filesystem": Text(
        "a submission can read what your user can read (other files, your progress) "
        "and write outside its scratch folder",
        "提交的代码能读取当前用户可读的文件（包括进度数据），也能写到临时文件夹之外",
    ),
    "system calls": Text(
        "a submission can start programs and open network sockets",
        "提交的代码能启动其他程序、打开网络连接",
    ),
    "resource limits": Text(
        "a submission can take unbounded memory and CPU; only the grade's time limit stops it",
        "提交的代码占用内存和 CPU 不受限制，只有评分的时间上限能终止它",
    ),
    "no_new_privs": Text(
        "a submission can gain privileges through setuid programs",
        "提交的代码能借助 setuid 程序提升权限",
    ),
    "capabilities": Text(
        "a submission run as root keeps root's powers",
        "以 root 运行时，提交的代码保有 root 的全部权限",
    ),
    "parent-death signal": Text(
        "a submission's process can outlive a grader that was killed",
        "评分进程被杀掉后，提交的代码可能继续运行",
    ),
}

#: What to do when any protection is missing.
_SANDBOX_FIX = (
    "grade on Linux 5.13 or later with Landlock enabled and libseccomp installed (apt install libseccomp2), "
    "or grade other people's code in a container or virtual machine"
)


@dataclass
class Problem:
    what: str
    fix: str


@dataclass
class Note:
    """Information, not a problem: an optional extra this installation chose not to have."""

    what: str
    how: str


@dataclass
class GradeCheck:
    """One file graded: the kata's reference (must pass) or its starter (must fail)."""

    kata: str
    file: str  # reference | starter
    device: str
    passed: bool
    score: int
    max_score: int
    seconds: float
    cuda_cases: int
    sandbox: str
    path: str  # one-off (as `normkata grade`) | service (as watch and grade-all)


@dataclass
class Report:
    python: dict[str, Any] = field(default_factory=dict)
    torch: dict[str, Any] = field(default_factory=dict)
    sandbox: dict[str, Any] = field(default_factory=dict)
    storage: dict[str, Any] = field(default_factory=dict)
    terminal: dict[str, Any] = field(default_factory=dict)
    katas: list[GradeCheck] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, **asdict(self)}


# -- Python, torch, numpy ------------------------------------------------------------------------


def python_facts() -> dict[str, Any]:
    return {"version": platform.python_version(), "executable": sys.executable, "platform": platform.platform()}


def torch_facts() -> dict[str, Any]:
    import numpy
    import torch

    cuda_build = torch.version.cuda
    facts: dict[str, Any] = {
        "version": str(torch.__version__),
        "build": "cuda" if cuda_build else "cpu",
        "cuda": cuda_build,
        "cuda_available": bool(torch.cuda.is_available()),
        "gpu": None,
        "numpy": numpy.__version__,
        "triton": _triton(),
        "triton_version": _triton_version(),
    }
    if facts["cuda_available"]:
        props = torch.cuda.get_device_properties(0)
        facts["gpu"] = {
            "name": props.name,
            "memory_gib": round(props.total_memory / 1024**3, 1),
            "count": torch.cuda.device_count(),
        }
    return facts


def _triton() -> str:
    """Triton's version and whether the kernel katas' bounds guard can run (the optional extra)."""
    from normkata.grading.launch import triton_guard

    return triton_guard()


def _triton_version() -> str | None:
    """The installed Triton's version, read from its metadata (nothing imported); None without it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("triton")
    except PackageNotFoundError:
        return None


# -- the sandbox ---------------------------------------------------------------------------------

_PROBE = """
import json, os, sys
from pathlib import Path
from normkata.grading import sandbox
level = sandbox.confine(sandbox.Policy(Path(sys.argv[1]), parent_pid=os.getppid()))
print(json.dumps({"level": level.name, "active": list(level.active), "missing": list(level.missing)}))
"""


def probe_confinement() -> dict[str, Any]:
    """Confine a throwaway process as a grading worker is confined: its level, active and missing."""
    from normkata.grading.launch import runner_environment

    with tempfile.TemporaryDirectory(prefix="normkata-doctor-") as scratch:
        try:
            command = [sys.executable, "-s", "-c", _PROBE, scratch]
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                env=runner_environment(),
                cwd=scratch,
                timeout=60,
                stdin=subprocess.DEVNULL,
            )
            return dict(json.loads(done.stdout.strip().splitlines()[-1]))
        except (subprocess.SubprocessError, ValueError, IndexError, OSError) as exc:
            return {"level": "off", "active": [], "missing": [f"confinement could not be tried ({exc})"]}


def sandbox_facts(report: Report, lang: str) -> dict[str, Any]:
    """The level a grading worker gets here, and for each missing protection why and what it means."""
    from normkata.grading import sandbox

    probe = probe_confinement()
    facts: dict[str, Any] = {
        "level": probe["level"],
        "active": probe["active"],
        "missing": [],
        "kernel": platform.release(),
        "landlock_abi": sandbox.landlock_abi(),
        "libseccomp": sandbox.seccomp_available(),
    }
    for missing in probe["missing"]:
        name = missing.split(" (")[0]
        means = PROTECTION_MEANS[name].in_(lang) if name in PROTECTION_MEANS else ""
        facts["missing"].append({"protection": name, "why": missing, "means": means})
        report.problems.append(Problem(f"sandbox: {missing}" + (f": {means}" if means else ""), _SANDBOX_FIX))
    return facts


# -- where progress lives --------------------------------------------------------------------------


def storage_facts(report: Report, workspace: str | None) -> dict[str, Any]:
    from normkata.content import cache
    from normkata.content.bank import bank_files, load_bank
    from normkata.errors import InputError
    from normkata.paths import database_path, quizzes_dir, state_dir, workspace_dir
    from normkata.record.store import StoreError, check_database_file

    database = database_path()
    facts: dict[str, Any] = {
        "state_dir": str(state_dir()),
        "database": str(database),
        "database_check": "not created yet",
        "cache_dir": str(cache.cache_dir()),
        "bank_cache": "absent",
        "workspace": str(workspace_dir(workspace)),
    }
    try:
        check_database_file(database)  # the store's own check, before SQLite opens it (a FIFO would hang)
    except StoreError as exc:
        facts["database_check"] = "not a database file"
        report.problems.append(
            Problem(
                f"progress database: {exc}",
                "move it away (normkata then starts a fresh database), or set NORMKATA_HOME",
            )
        )
    else:
        _check_database(report, facts, database)
    folder = quizzes_dir()
    try:
        if cache.read(folder, cache.key(folder, bank_files(folder))) is not None:
            facts["bank_cache"] = "fresh"
        else:
            load_bank(folder)  # validates the bank and writes the cache
            facts["bank_cache"] = "rebuilt"
    except (InputError, OSError) as exc:
        facts["bank_cache"] = "bank invalid"
        report.problems.append(Problem(f"question bank: {exc}", f"run `normkata content check {folder}`"))
    return facts


def _check_database(report: Report, facts: dict[str, Any], database: Path) -> None:
    """SQLite's integrity check of the database file, when there is one."""
    from normkata.record.store import integrity_problem

    if not database.exists():
        return
    damage = integrity_problem(database)
    facts["database_check"] = damage or "ok"
    if damage:
        report.problems.append(
            Problem(
                f"progress database {database} is damaged: {damage}",
                "run any normkata command: it sets the damaged file aside and starts a new one "
                "(the old file is kept beside it as normkata.db.damaged-<time>)",
            )
        )


def terminal_facts() -> dict[str, Any]:
    size = shutil.get_terminal_size(fallback=(0, 0))
    return {
        "is_terminal": sys.stdout.isatty(),
        "encoding": sys.stdout.encoding,
        "width": size.columns or None,
        "colour": not os.environ.get("NO_COLOR") and sys.stdout.isatty(),
        "locale": os.environ.get("LC_ALL") or os.environ.get("LANG") or "",
    }


# -- grading, end to end ------------------------------------------------------------------------------


#: What to do when Triton is not the release the kernel katas were tested with.
_TRITON_FIX = (
    'pip install "normkata[triton]", which pins triton=={tested} (if this environment\'s torch pins another '
    "Triton, grade the kernel katas in a virtual environment of their own with the CPU torch and the extra)"
)


def triton_problem(report: Report) -> None:
    """Triton is installed but not as the extra pins it: its interpreter lacks what the bounds
    guard wraps, or it is another release, whose interpreter runs some kernels differently."""
    from normkata.grading.messages import TESTED_TRITON

    fix = _TRITON_FIX.format(tested=TESTED_TRITON)
    version = report.torch.get("triton_version")
    if "guard cannot run" in report.torch.get("triton", ""):
        report.problems.append(Problem(f"kernel katas: {report.torch['triton']}", fix))
    elif version is not None and version != TESTED_TRITON:
        # Grading runs kernels under Triton's interpreter (on CPU, and on a GPU inside the sandbox),
        # whose behaviour changes between releases: seen in 3.6, a correct loop over blocks fails.
        report.problems.append(
            Problem(
                f"kernel katas: triton {version} is not the release they were tested with ({TESTED_TRITON}); "
                "Triton's interpreter behaves differently from one release to another, so a correct kernel may "
                "fail here or a mistake go unnoticed (under 3.6 a correct `for start in range(0, n, BLOCK)` loop "
                'stops with "only 0-dimensional arrays can be converted to Python scalars")',
                fix,
            )
        )


def choose_device(requested: str, torch_info: dict[str, Any], report: Report) -> str | None:
    """The device to grade on, or None (with a problem) when CUDA was asked for and is absent."""
    if requested == "cpu":
        return "cpu"
    if torch_info["cuda_available"]:
        return "cuda"
    if requested == "cuda":
        if torch_info["build"] == "cpu":
            report.problems.append(
                Problem(
                    f"--device cuda: torch {torch_info['version']} is a CPU-only build",
                    "install a CUDA build of torch (pip install torch from PyTorch's CUDA index)",
                )
            )
        else:
            report.problems.append(
                Problem(
                    f"--device cuda: torch {torch_info['version']} (CUDA {torch_info['cuda']}) sees no GPU",
                    "check `nvidia-smi`, the driver version and CUDA_VISIBLE_DEVICES",
                )
            )
        return None
    return "cpu"


@contextmanager
def _copies(kata: Any) -> Iterator[tuple[Path, Path]]:
    """The reference and the starter copied where a submission may be read (the installed
    solutions folder is, rightly, unreadable to submissions)."""
    with tempfile.TemporaryDirectory(prefix="normkata-doctor-") as scratch:
        pair = []
        for name in ("reference", "starter"):
            folder = Path(scratch) / name
            folder.mkdir()
            source = kata.solution if name == "reference" else kata.starter
            target = folder / kata.file
            target.write_bytes(source.read_bytes())
            pair.append(target)
        yield pair[0], pair[1]


def without_missing_extras(report: Report, katas: list[Any]) -> list[Any]:
    """The katas this installation can grade; for each optional extra it lacks, one note saying
    what the extra would enable (and which katas go ungraded) and the one command that installs it:
    a choice the quick start leaves to the learner, not a problem."""
    from normkata.extras import OPTIONAL_EXTRAS

    for extra in OPTIONAL_EXTRAS.values():
        if extra.installed():
            continue
        ungraded = [kata.id for kata in katas if extra.name in kata.requires]
        also = f"; not graded here: {', '.join(ungraded)}" if ungraded else ""
        report.notes.append(
            Note(
                f"optional extra {extra.name!r} not installed: it would enable {extra.enables}{also}",
                f'pip install "{extra.package}"',
            )
        )
    return [kata for kata in katas if not kata.missing_extras()]


def grade_katas(report: Report, katas: list[Any], device: str, lang: str, advance: Callable[[str], None]) -> None:
    """Every kata's reference (must pass) and starter (must fail) through the warm service, the
    path of watch and grade-all; the first reference also through a one-off runner, the path of
    `normkata grade`."""
    from normkata.grading.client import Grader, grade_once

    with Grader() as grader:
        for number, kata in enumerate(katas):
            with _copies(kata) as (reference, starter):
                if number == 0:
                    _check(report, kata.id, reference, "reference", device, lang, "one-off", grade_once)
                _check(report, kata.id, reference, "reference", device, lang, "service", grader.grade)
                _check(report, kata.id, starter, "starter", device, lang, "service", grader.grade)
            advance(kata.id)


def grading_failure_fix(kata: str, exc: Exception) -> str:
    """What to do when a grade gave no verdict, by why it gave none."""
    from normkata.errors import InputError
    from normkata.grading.errors import GraderDidNotStart, GraderTimedOut

    if isinstance(exc, InputError):
        return f"the kata's own files are broken: run `normkata content check --deep --kata {kata}` and report it"
    if isinstance(exc, GraderTimedOut):
        return (
            f"this machine was too busy for the grade's time limit: close other work and run "
            f"`normkata doctor --kata {kata}`"
        )
    if isinstance(exc, GraderDidNotStart):
        return (
            'the grader could not start here: check that `python -c "import torch, pytest"` works in this environment'
        )
    return f"the grader failed: report this with the output of `normkata doctor --kata {kata} --json`"


def _check(
    report: Report, kata: str, file: Path, which: str, device: str, lang: str, path: str, grade: Callable[..., Any]
) -> None:
    from normkata.grading.contract import Category, Status

    started = time.perf_counter()
    try:
        result = grade(kata, file, device=device, lang=lang)
    except Exception as exc:  # noqa: BLE001  the doctor reports a broken grader, it does not crash on it
        report.problems.append(Problem(f"{kata}: grading the {which} failed: {exc}", grading_failure_fix(kata, exc)))
        return
    seconds = round(time.perf_counter() - started, 2)
    cuda = sum(c.category is Category.CUDA and c.status is not Status.SKIPPED for c in result.cases)
    report.katas.append(
        GradeCheck(
            kata, which, device, result.passed, result.score, result.max_score, seconds, cuda, result.sandbox, path
        )
    )
    if which == "reference" and not result.passed:
        failing = next((c for c in result.cases if c.status in (Status.FAILED, Status.ERROR)), None)
        detail = f": {failing.name}: {failing.message.splitlines()[0] if failing.message else ''}" if failing else ""
        report.problems.append(
            Problem(
                f"{kata}: the reference fails its suite on {device} ({path}){detail}",
                "report this with `normkata doctor --json`: the suite or this machine's torch "
                "disagrees with the reference",
            )
        )
    if which == "starter" and (result.passed or result.score):
        report.problems.append(
            Problem(
                f"{kata}: the untouched starter scores {result.score}/{result.max_score}",
                "the kata's suite accepts an empty file: report this",
            )
        )
    if device == "cuda" and which == "reference" and cuda == 0:
        report.problems.append(
            Problem(f"{kata}: no CUDA case ran on the GPU", "check the sandbox line above and `nvidia-smi`")
        )
