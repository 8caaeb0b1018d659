"""normkata.grading.sandbox: a confined process keeps torch and loses everything a cheat needs.

Each test starts a fresh Python that imports torch, warms it up, calls confine() and then
tries the forbidden things itself, printing one JSON line of outcomes. Nothing here signals or
stops the test process: the signal probes aim at a decoy `sleep` and at the parent with
signal 0, which the same rules govern.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest

from normkata.grading import sandbox

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox confines Linux processes")

PROBE = textwrap.dedent(
    r"""
    import ctypes, errno, json, os, resource, signal, socket, subprocess, sys, tempfile, threading, time
    from pathlib import Path

    import torch

    secret, scratch, outside, decoy = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])

    def rms(x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).to(x.dtype) * w

    def forward_backward(dtype):
        x = torch.randn(32, 64, dtype=dtype, requires_grad=True)
        w = torch.nn.Parameter(torch.rand(64, dtype=dtype))
        y = rms(x, w)
        y.backward(torch.randn_like(y))
        return bool(torch.isfinite(x.grad.float()).all() and torch.isfinite(w.grad.float()).all())

    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        forward_backward(dtype)  # warm-up, as the worker does before confine()

    from normkata.grading import sandbox

    policy = sandbox.Policy(
        scratch=scratch,
        denied=(*sandbox.default_denied(), secret.parent),
        cpu_seconds=120,
        file_size_bytes=8 * 1024**2,
    )
    outside_fd = os.open(outside, os.O_RDONLY)  # opened before: only seccomp can refuse fchmod and futimens
    started = time.perf_counter()
    level = sandbox.confine(policy)
    confine_ms = (time.perf_counter() - started) * 1000
    libc = ctypes.CDLL(None, use_errno=True)
    results = {}

    def attempt(name, action):
        try:
            value = action()
        except OSError as exc:
            results[name] = f"blocked {errno.errorcode.get(exc.errno, exc.errno)}"
        except Exception as exc:
            results[name] = f"blocked {type(exc).__name__}"
        else:
            results[name] = f"ALLOWED {value!r}"[:80]

    def c_call(result):
        if result < 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))
        return result

    def fork():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        return pid

    def write_big():
        with open(scratch / "big", "wb") as f:
            block = b"x" * 2**20
            for _ in range(2048):  # 2 GiB if nothing stops it
                f.write(block)
                f.flush()

    def symlink_read():
        os.symlink(secret, scratch / "link")
        return (scratch / "link").read_text()

    def dir_fd_read():
        fd = os.open(secret.parent, os.O_PATH | os.O_DIRECTORY)
        return os.read(os.open(secret.name, os.O_RDONLY, dir_fd=fd), 100)

    attempt("read protected", lambda: secret.read_text())
    attempt("read reference", lambda: Path(sys.argv[5]).read_text())
    attempt("list protected", lambda: os.listdir(secret.parent))
    attempt("write outside scratch", lambda: (outside / "x").write_text("x"))
    attempt("fork", fork)
    attempt("subprocess cat", lambda: subprocess.run(["cat", str(secret)], capture_output=True).stdout)
    attempt("socket AF_INET", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
    attempt("socket AF_INET6", lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM))
    attempt("socket AF_UNIX", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
    attempt("signal parent", lambda: os.kill(os.getppid(), 0))
    attempt("SIGSTOP decoy", lambda: os.kill(decoy, signal.SIGSTOP))
    attempt("kill process group 0", lambda: os.kill(0, 0))
    attempt("/proc/ppid/mem", lambda: open(f"/proc/{os.getppid()}/mem", "rb").read(1))
    attempt("ctypes open", lambda: c_call(libc.open(str(secret).encode(), os.O_RDONLY)))
    attempt("symlink into protected", symlink_read)
    attempt("hard link", lambda: os.link(secret, scratch / "hard"))
    attempt("dir_fd open", dir_fd_read)
    attempt("/proc/self/root", lambda: open(f"/proc/self/root{secret}").read())
    attempt("write 2 GiB", write_big)
    attempt("raise RLIMIT_CPU", lambda: resource.setrlimit(resource.RLIMIT_CPU, (10**6, 10**6)))
    attempt("setsid", os.setsid)
    attempt("clear PDEATHSIG", lambda: c_call(libc.prctl(1, 0, 0, 0, 0)))
    attempt("unshare", lambda: c_call(libc.unshare(0x10000000)))  # CLONE_NEWUSER
    attempt("io_uring_setup", lambda: c_call(libc.syscall(425, 1, None)))
    attempt("ptrace parent", lambda: c_call(libc.ptrace(16, os.getppid(), None, None)))  # PTRACE_ATTACH
    # Metadata of a folder it may not write (modes, owners, times, attributes), by path and descriptor;
    # 452 fchmodat2 and 466 removexattrat by number (newer than some libseccomp releases).
    attempt("chmod outside", lambda: os.chmod(outside, 0o777))
    attempt("fchmod outside", lambda: os.fchmod(outside_fd, 0o777))
    attempt("fchmodat2 outside", lambda: c_call(libc.syscall(452, -100, str(outside).encode(), 0o777, 0)))
    attempt("chown outside", lambda: os.chown(outside, os.getuid(), os.getgid()))
    attempt("utime outside", lambda: os.utime(outside, (1, 1)))
    attempt("futimens outside", lambda: os.utime(outside_fd, (1, 1)))
    attempt("setxattr outside", lambda: os.setxattr(outside, "user.normkata", b"x"))
    attempt("removexattrat outside",
            lambda: c_call(libc.syscall(466, -100, str(outside).encode(), 0, b"user.normkata")))

    works = {}
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        works[f"forward/backward {dtype}"] = forward_backward(dtype)
    box = []
    thread = threading.Thread(target=lambda: box.append(forward_backward(torch.float32)))
    thread.start()
    thread.join()
    works["thread"] = box == [True]
    torch.set_num_threads(2)
    works["intra-op threads"] = bool(torch.isfinite(torch.randn(256, 256) @ torch.randn(256, 256)).all())
    works["write scratch"] = (scratch / "ok").write_text("ok") == 2
    with tempfile.TemporaryFile() as handle:  # TMPDIR points into scratch
        works["tempfile"] = handle.write(b"ok") == 2
    os.kill(os.getpid(), 0)
    works["signal self"] = True
    import decimal, yaml  # noqa: F401  lazy imports: stdlib and site-packages
    works["lazy imports"] = True
    print(json.dumps({"level": str(level), "active": level.active, "confine_ms": confine_ms,
                      "results": results, "works": works}))
    """
)

# Ones that fail on a write or read the sandbox forbids answer EACCES (Landlock) or EPERM (seccomp).
MUST_BE_BLOCKED = [
    "read protected",
    "read reference",
    "list protected",
    "write outside scratch",
    "fork",
    "subprocess cat",
    "socket AF_INET",
    "socket AF_INET6",
    "socket AF_UNIX",
    "signal parent",
    "SIGSTOP decoy",
    "kill process group 0",
    "/proc/ppid/mem",
    "ctypes open",
    "symlink into protected",
    "hard link",
    "dir_fd open",
    "/proc/self/root",
    "raise RLIMIT_CPU",
    "setsid",
    "clear PDEATHSIG",
    "unshare",
    "io_uring_setup",
    "ptrace parent",
]


def _reference() -> Path:
    from normkata.paths import solutions_dir

    return solutions_dir() / "rmsnorm.py"


def _probe(tmp_path: Path, prefix: list[str] | None = None) -> dict[str, Any]:
    protected = tmp_path / "protected"
    protected.mkdir()
    (protected / "secret.txt").write_text("the reference")
    for name in ("scratch", "outside"):
        # World-writable: for an unprivileged probe, only the sandbox stands in the way.
        (tmp_path / name).mkdir()
        (tmp_path / name).chmod(0o777)
    decoy = subprocess.Popen(["sleep", "60"])
    try:
        completed = subprocess.run(
            [
                *(prefix or []),
                sys.executable,
                "-c",
                PROBE,
                str(protected / "secret.txt"),
                str(tmp_path / "scratch"),
                str(tmp_path / "outside"),
                str(decoy.pid),
                str(_reference()),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        state = Path(f"/proc/{decoy.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    finally:
        decoy.kill()
        decoy.wait()
    assert completed.returncode == 0, completed.stderr[-3000:]
    report: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    report["decoy state"] = state
    report["scratch"] = sorted(p.name for p in (tmp_path / "scratch").iterdir())
    report["outside"] = sorted(p.name for p in (tmp_path / "outside").iterdir())
    report["big size"] = (tmp_path / "scratch" / "big").stat().st_size
    return report


#: Refused by seccomp itself (EPERM), not by a missing attribute or file system support.
METADATA = [
    "chmod outside",
    "fchmod outside",
    "fchmodat2 outside",
    "chown outside",
    "utime outside",
    "futimens outside",
    "setxattr outside",
    "removexattrat outside",
]


def _assert_confined(report: dict[str, Any]) -> None:
    results = report["results"]
    allowed = {name: results[name] for name in MUST_BE_BLOCKED if not results[name].startswith("blocked")}
    assert not allowed, f"not blocked: {allowed}"
    not_refused = {name: results[name] for name in METADATA if results[name] != "blocked EPERM"}
    assert not not_refused, f"metadata not refused: {not_refused}"
    assert results["write 2 GiB"] == "blocked EFBIG"
    assert report["big size"] == 8 * 1024**2  # stopped at RLIMIT_FSIZE
    assert report["decoy state"] != "T"
    assert report["outside"] == []
    assert all(report["works"].values()), report["works"]


def _mechanisms_missing() -> str | None:
    """Why this kernel or system cannot give a full level (the probes then say nothing useful)."""
    libc = sandbox.kernel.load_libc()
    if libc is None or sandbox.landlock.kernel_abi(libc) == 0:
        return "this kernel has no Landlock"
    if isinstance(sandbox.seccomp.import_pyseccomp(), str):
        return "pyseccomp or libseccomp is not installed"
    return None


needs_full = pytest.mark.skipif(
    sys.platform.startswith("linux") and _mechanisms_missing() is not None, reason=str(_mechanisms_missing())
)


@needs_full
def test_a_confined_process_keeps_torch_and_loses_the_rest(tmp_path: Path) -> None:
    report = _probe(tmp_path)
    assert report["level"] == "full", report["level"]
    _assert_confined(report)
    active = " | ".join(report["active"])
    assert "filesystem (Landlock ABI" in active and "system calls (seccomp)" in active, active
    print(f"confine() took {report['confine_ms']:.1f} ms; active: {active}")


def _unprivileged_prefix() -> list[str]:
    """setpriv arguments that run the probe as a process without any privilege.

    The user nobody when it can reach this interpreter; else uid 0 with every capability gone
    from all sets, which is what Landlock and seccomp see of an ordinary user (they check
    no_new_privs and CAP_SYS_ADMIN, not the uid).
    """
    if os.geteuid() != 0:
        pytest.skip("already unprivileged: the test above ran as an ordinary user")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is not installed")
    nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    reachable = subprocess.run([*nobody, sys.executable, "-c", "import torch"], capture_output=True, timeout=120)
    if reachable.returncode == 0:
        return nobody
    drop = "-all"
    return [setpriv, f"--inh-caps={drop}", f"--ambient-caps={drop}", f"--bounding-set={drop}"]


@needs_full
def test_the_same_confinement_without_privileges(tmp_path: Path) -> None:
    prefix = _unprivileged_prefix()
    if "--reuid=65534" in prefix:
        for folder in (tmp_path, *tmp_path.parents):  # pytest's tmp folders are private to root
            if folder == Path(tempfile.gettempdir()):
                break
            folder.chmod(folder.stat().st_mode | 0o111)
    report = _probe(tmp_path, prefix)
    assert report["level"] == "full", report["level"]
    _assert_confined(report)


def test_level_names_what_is_missing() -> None:
    full = sandbox.SandboxLevel(active=sandbox.CORE, missing=())
    assert str(full) == "full"
    partial = sandbox.SandboxLevel(active=sandbox.CORE[:-1], missing=("system calls (libseccomp not found)",))
    assert partial.describe() == "partial: missing system calls (libseccomp not found)"
    assert sandbox.SandboxLevel((), ("everything (no Linux confinement on darwin)",)).name == "off"


def test_confine_degrades_and_says_what_is_missing() -> None:
    """A kernel without Landlock and a system without libseccomp: partial, named, no exception."""
    code = textwrap.dedent(
        """
        import sys, tempfile
        from pathlib import Path
        sys.modules["pyseccomp"] = None  # import fails as where pyseccomp or libseccomp is absent
        from normkata.grading import sandbox
        sandbox.landlock.kernel_abi = lambda libc: 0  # as on a kernel without Landlock
        level = sandbox.confine(sandbox.Policy(scratch=Path(tempfile.mkdtemp())))
        print(level.name)
        print(level)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    name, line = done.stdout.strip().splitlines()
    assert name == "partial"
    assert line.startswith("partial: missing filesystem (this kernel has no Landlock); system calls (pyseccomp")


def test_harden_runner_makes_the_runner_undumpable() -> None:
    code = "import ctypes; from normkata.grading import sandbox; sandbox.harden_runner(); print(ctypes.CDLL(None).prctl(3))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "0", done.stderr  # PR_GET_DUMPABLE


def test_readable_defaults_leave_normkata_out() -> None:
    readable = sandbox.default_readable()
    denied = sandbox.default_denied()
    package = Path(sandbox.__file__).resolve().parents[2]
    assert package in denied
    for path in readable:
        assert not path.name.lower().startswith("normkata"), path
        for secret in denied:
            assert secret != path and secret not in path.parents, (path, secret)


def test_kill_process_group_reaches_a_detached_grandchild() -> None:
    worker = sandbox.spawn_worker(
        [sys.executable, "-c", "import subprocess, time; subprocess.Popen(['sleep', '60']); time.sleep(60)"]
    )
    try:
        assert os.getpgid(worker.pid) == worker.pid
        deadline = 50
        while deadline and len(_group(worker.pid)) < 2:
            deadline -= 1
            subprocess.run(["sleep", "0.1"])
        assert len(_group(worker.pid)) == 2
    finally:
        sandbox.kill_process_group(worker.pid)
        worker.wait(timeout=10)
    assert worker.returncode == -signal.SIGKILL
    for _ in range(50):
        if not _group(worker.pid):
            break
        subprocess.run(["sleep", "0.1"])
    assert _group(worker.pid) == []


def test_kill_descendants_finds_a_grandchild_that_left_the_group() -> None:
    """Double fork + setsid escapes the group kill; the hardened runner adopts and kills it."""
    runner = textwrap.dedent(
        """
        import os, sys, time
        from normkata.grading import sandbox
        sandbox.harden_runner()
        escape = (
            "import os, time\\n"
            "if os.fork() == 0:\\n"
            "    os.setsid()\\n"
            "    if os.fork() == 0:\\n"
            "        print(os.getpid(), flush=True); time.sleep(60)\\n"
            "    os._exit(0)\\n"
            "os.wait()\\n"
        )
        worker = sandbox.spawn_worker([sys.executable, "-c", escape], stdout=None)
        worker.wait()
        sandbox.kill_process_group(worker.pid)
        time.sleep(0.3)
        print("killed", sandbox.kill_descendants(), flush=True)
        """
    )
    done = subprocess.run([sys.executable, "-c", runner], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    escaped, killed = done.stdout.strip().splitlines()
    assert killed == f"killed [{escaped}]"
    assert not Path(f"/proc/{escaped}").exists() or "Z" in Path(f"/proc/{escaped}/stat").read_text().rsplit(")")[1][:3]


def _group(pgid: int) -> list[int]:
    """Live (not zombie) processes in a process group."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members
