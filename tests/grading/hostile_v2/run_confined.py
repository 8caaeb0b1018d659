"""Run hostile_v2 submissions in a confined process, without the grader, and check what they changed.

    python tests/grading/hostile_v2/run_confined.py [NAME ...] [--user nobody] [--timeout S]

A stand-in for the worker until the grader calls normkata.grading.sandbox itself: each
submission runs in a fresh Python that imports torch, warms it up, calls `confine()`, imports
the submission and runs a few forwards. The parent (hardened like the runner) gives it a
throwaway NORMKATA_HOME with a progress database, a workspace with other katas, a current
folder with a results.json and a throwaway copy of the normkata package first on sys.path;
afterwards it reports, per submission: whether its output matched a correct RMSNorm (a
stolen or borrowed implementation would), whether anything outside the scratch folder
changed, whether any process outlived it, and how long it took.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pwd
import shutil
import sqlite3
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(REPO))

from normkata.grading import sandbox  # noqa: E402  (after the path is set)

WORKER = r"""
import json, os, sys, time, importlib.util
import torch

# Above the 0-255 a submission may close, and made before RLIMIT_NOFILE applies.
report_fd = os.dup2(int(sys.argv[3]), 1000)
submission, scratch = sys.argv[1], sys.argv[2]

def correct(x, w, eps=1e-5):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w

for dtype in (torch.float32, torch.bfloat16, torch.float16):  # warm-up, as the worker does
    x = torch.randn(4, 8, dtype=dtype, requires_grad=True)
    correct(x, torch.ones(8, dtype=dtype)).sum().backward()

from normkata.grading import sandbox
policy = sandbox.Policy(
    scratch=__import__("pathlib").Path(scratch),
    readable=(*sandbox.default_readable(), __import__("pathlib").Path(submission)),
    cpu_seconds=60,
)
level = sandbox.confine(policy) if not os.environ.get("HOSTILE_V2_UNCONFINED") else "off (control run)"
for name in [m for m in sys.modules if m == "normkata" or m.startswith("normkata.")]:
    del sys.modules[name]  # as the worker does: normkata cannot be imported from here on

def tell(**fields):
    os.write(report_fd, (json.dumps(fields, ensure_ascii=True) + "\n").encode())

tell(stage="confined", level=str(level))
spec = importlib.util.spec_from_file_location("rmsnorm", submission)
module = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(module)
except BaseException as exc:
    tell(stage="import", error=f"{type(exc).__name__}: {str(exc)[:200]!r}")
    os._exit(0)
verdicts = []
for seed in range(4):
    torch.manual_seed(seed)
    try:
        layer = module.RMSNorm(16)
        with torch.no_grad():
            layer.weight.copy_(torch.rand(16) + 0.5)
        x = torch.randn(3, 16)
        got = layer(x)
        verdicts.append(bool(torch.allclose(got.float(), correct(x, layer.weight.detach()).float(), atol=1e-5)))
    except BaseException as exc:
        verdicts.append(f"{type(exc).__name__}: {str(exc)[:120]!r}")
tell(stage="forward", verdicts=verdicts)
os._exit(0)
"""


def _fingerprint(root: Path) -> dict[str, str]:
    """Path -> sha256 of every file under root (symlinks by their target)."""
    prints: dict[str, str] = {}
    if not root.exists():
        return prints
    for path in sorted(root.rglob("*")):
        if "__pycache__" in path.parts and path.suffix != ".pyc":
            continue
        key = str(path.relative_to(root))
        if path.is_symlink():
            prints[key] = "-> " + os.readlink(path)
        elif path.is_file():
            prints[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return prints


def _world(base: Path) -> dict[str, Path]:
    """A throwaway home, workspace, current folder and installation for one submission."""
    home, workspace, cwd, site = base / "home", base / "workspace", base / "cwd", base / "site-packages"
    for folder in (home, workspace, cwd, site):
        folder.mkdir(parents=True)
    with sqlite3.connect(home / "normkata.db") as db:
        db.execute("CREATE TABLE attempts (id INTEGER PRIMARY KEY, kata TEXT, passed INTEGER, score INTEGER)")
        db.execute("CREATE TABLE answers (id INTEGER PRIMARY KEY, question TEXT, correct INTEGER)")
        db.executemany("INSERT INTO attempts (kata, passed, score) VALUES (?, 0, 3)", [("rmsnorm",), ("layernorm",)])
        db.executemany("INSERT INTO answers (question, correct) VALUES (?, 0)", [("q1",), ("q2",)])
    db.close()
    (workspace / "layernorm.py").write_text("# my layernorm, half done\n")
    (workspace / "batchnorm.py").write_text("# my batchnorm\n")
    (cwd / "results.json").write_text('{"score": 0, "max_score": 51}\n')
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(REPO / "normkata", site / "normkata", ignore=ignore)
    for name in ("katas", "solutions", "quizzes"):
        shutil.copytree(REPO / name, site / "normkata" / "_content" / name, ignore=ignore)
    return {"home": home, "workspace": workspace, "cwd": cwd, "site": site}


def _real_state() -> dict[str, str]:
    """What of the real installation a failed confinement would touch: new files, hostile markers.

    Only names the submissions write count: other people's pip installs may add packages meanwhile.
    """
    site = Path(sysconfig.get_paths()["purelib"])
    planted = sorted(
        p.name for p in site.iterdir() if "hostile" in p.name or p.suffix == ".pth" or p.name == "conftest.py"
    )
    marked = [
        str(p)
        for p in (REPO / "normkata" / "grading" / "plugin.py", REPO / "normkata" / "grading" / "runner.py")
        if "hostile submission" in p.read_text(errors="replace")
    ]
    return {"site-packages": ",".join(planted), "marked": ",".join(marked)}


# Submissions whose tricks, unconfined, read anything but write only inside the throwaway world
# (or fork, listen on 127.0.0.1, detach): the only ones --unconfined will run, to show the
# tricks work and this script sees them. The rest would write into the real installation.
UNCONFINED_SAFE = {
    "reads_installed_content",
    "ctypes_libc_open",
    "dir_fd_openat",
    "proc_self_root",
    "cat_subprocess",
    "writes_progress_db",
    "deletes_quiz_history",
    "overwrites_workspace",
    "twenty_sleeping_children",
    "holds_stdout_forever",
    "listens_on_localhost",
    "fork_bomb_bounded",
}


# These call torch's own kernel through names the OS cannot see: the worker's forbidden-call
# guard must catch them, not the sandbox, and this script has no such guard.
TORCH_KERNEL = {"aten_ops_rms_norm", "variable_functions_rms_norm", "functional_dict_rms_norm", "reloads_functional"}


def run_one(path: Path, user: str | None, timeout: float, unconfined: bool = False) -> dict[str, object]:
    if unconfined and path.stem not in UNCONFINED_SAFE:
        raise SystemExit(f"{path.stem}: not run unconfined, it would write outside the throwaway world")
    base = Path(tempfile.mkdtemp(prefix=f"hostile-{path.stem}-"))
    try:
        return _run_in(base, path, user, timeout, unconfined)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _run_in(base: Path, path: Path, user: str | None, timeout: float, unconfined: bool) -> dict[str, object]:
    world = _world(base)
    submission = world["workspace"] / "rmsnorm.py"
    shutil.copy(path, submission)
    scratch = base / "scratch"
    scratch.mkdir()
    if user:
        shutil.chown(base, user)
        for folder in (base, *world.values(), scratch):
            for item in (folder, *folder.rglob("*")):
                shutil.chown(item, user)
    before = {name: _fingerprint(folder) for name, folder in world.items()}
    real_before = _real_state()
    env = {
        **os.environ,
        "NORMKATA_HOME": str(world["home"]),
        "NORMKATA_WORKSPACE": str(world["workspace"]),
        "PWD": str(world["cwd"]),
        "PYTHONPATH": str(world["site"]),
        "PYTHONDONTWRITEBYTECODE": "1",
        **({"HOSTILE_V2_UNCONFINED": "1"} if unconfined else {}),
    }
    prefix = []
    if user:
        account = pwd.getpwnam(user)
        prefix = ["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}", "--clear-groups"]
    log = open(base / "worker.log", "w+b")  # noqa: SIM115  (closed below)
    report_read, report_write = os.pipe()
    started = time.monotonic()
    worker = sandbox.spawn_worker(
        [*prefix, sys.executable, "-c", WORKER, str(submission), str(scratch), str(report_write)],
        pass_fds=(report_write,),
        env=env,
        cwd=world["cwd"],
        stdout=log,  # a file, as the grader's worker log: RLIMIT_FSIZE caps a flood
        stderr=log,
    )
    os.close(report_write)
    os.set_blocking(report_read, False)
    output = b""
    timed_out = False
    while True:
        try:
            chunk = os.read(report_read, 1 << 16)
        except BlockingIOError:
            chunk = None
        if chunk:
            output = (output + chunk)[-(1 << 20) :]
            continue
        if worker.poll() is not None:
            break
        if time.monotonic() - started > timeout:
            timed_out = True
            break
        time.sleep(0.05)
    elapsed = time.monotonic() - started
    sandbox.kill_process_group(worker.pid)
    worker.wait()
    os.close(report_read)
    time.sleep(0.3)  # let a detached grandchild, if one escaped, show itself
    survivors = sandbox.kill_descendants()
    log.seek(0, os.SEEK_END)
    log_size = log.tell()
    log.close()
    time.sleep(1.5)  # a late writer (rewrites results after the grade) would strike now
    after = {name: _fingerprint(folder) for name, folder in world.items()}
    changed = {
        name: sorted(set(before[name].items()) ^ set(after[name].items()))[:6]
        for name in world
        if before[name] != after[name]
    }
    reports = [json.loads(line) for line in output.decode(errors="replace").splitlines() if line.startswith("{")]
    verdicts = next((r.get("verdicts") for r in reports if r.get("stage") == "forward"), None)
    import_error = next((r.get("error") for r in reports if r.get("stage") == "import"), None)
    level = next((r.get("level") for r in reports if r.get("stage") == "confined"), None)
    if level is None:  # the worker died before confining: say why
        level = "worker failed: " + (base / "worker.log").read_text(errors="replace")[-300:]
    stole = bool(verdicts) and any(v is True for v in verdicts)  # a correct output: the trick worked
    return {
        "fixture": path.stem,
        "level": level,
        "outcome": "TIMEOUT" if timed_out else ("import error" if import_error else "ran"),
        "correct output (trick worked)": stole,
        "verdicts": verdicts if verdicts is not None else import_error,
        "changed outside scratch": changed,
        "real installation": "unchanged" if _real_state() == real_before else f"CHANGED {_real_state()}",
        "survivors": survivors,
        "worker exit": worker.returncode,
        "log bytes": log_size,
        "seconds": round(elapsed, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*")
    parser.add_argument("--user", help="run the submission as this user (needs root and setpriv)")
    parser.add_argument("--timeout", type=float, default=25.0)
    parser.add_argument("--unconfined", action="store_true", help="control run without confine(), safe names only")
    args = parser.parse_args()
    sandbox.harden_runner()
    paths = sorted(HERE.glob("*.py"))
    paths = [p for p in paths if p.name != Path(__file__).name and (not args.names or p.stem in args.names)]
    bad = 0
    for path in paths:
        result = run_one(path, args.user, args.timeout, args.unconfined)
        contained = (
            (result["level"] == "full" or args.unconfined)
            and not result["correct output (trick worked)"]
            and not result["changed outside scratch"]
            and result["real installation"] == "unchanged"
            and not result["survivors"]
        )
        if path.stem in TORCH_KERNEL and not contained:
            label = "GUARD     "  # the worker's job; counted apart
        else:
            bad += not contained
            label = "contained " if contained else "ESCAPED   "
        print(label + json.dumps(result, ensure_ascii=True), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
