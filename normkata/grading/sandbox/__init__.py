"""Operating-system confinement for the process that runs a learner's code.

The worker calls `confine()` on itself once torch is imported and warmed up (a forward and a
backward in each dtype, so kernels and lazy imports are loaded) and before it imports the
learner's file. From then on the process, and the learner's code in it, is held to:

- **no_new_privs** and no capabilities (root included): nothing it does can gain privileges.
- **parent-death signal**: SIGKILL when the runner that started it dies.
- **Landlock** (filesystem): read-only on `Policy.readable`, read-write only in
  `Policy.scratch`, nothing executable anywhere but `Policy.executables` and their loader.
  Landlock is an allow-list, so the normkata package, the hidden suites and the reference
  solutions are left out by *not* allowing them: a readable folder that contains one of
  `Policy.denied` is allowed entry by entry around it (site-packages minus `normkata*`).
  Where the kernel's ABI has them, TCP bind/connect, abstract UNIX sockets and signals to
  processes outside the sandbox are denied too.
- **seccomp**: no new processes (fork, vfork, clone without CLONE_THREAD, clone3, exec; a
  policy that names `executables` may vfork and exec those programs and nothing else), no
  sockets, no signals except to itself, no ptrace or cross-process memory access, no leaving
  the process group, no changing resource limits or the parent-death signal, no mount, module,
  bpf, io_uring or terminal-injection (TIOCSTI) calls, and no change of any file's metadata
  (modes, owners, times, extended attributes and flags: Landlock does not govern them).
  Denied calls fail with EPERM, so the learner sees an ordinary Python exception rather than
  a dead process; threads still work (torch needs them).
- **resource limits**: CPU seconds, file size, address space, open files, no core dumps.

Each layer is applied best-effort and recorded in the returned `SandboxLevel`, which reports
quote ("full", or "partial: <what is missing>", or "off"). `confine()` never raises: a kernel
without Landlock, a system without libseccomp, macOS or Windows give a weaker level, said so.

Why these libraries: Landlock is three system calls and two small structs, called here through
ctypes; the PyPI bindings for it are pre-releases (`landlock` 1.0.0.dev5) or young projects, and
a dependency would not remove the need to check the kernel's ABI ourselves. seccomp filters
are built with `pyseccomp` (ctypes over the system's libseccomp, API-compatible with
libseccomp's own Python bindings), which writes correct BPF for the native architecture,
including argument checks and the kill of foreign-architecture (int 0x80 / x32) calls: not
something to hand-write.

No descendant survives a grade: seccomp stops the worker from creating processes at all, and
where it is missing `processes` ends the worker's process group and whatever left it.

One protection per module: `policy` (what is asked and got, the default paths), `kernel` (libc
and prctl), `landlock`, `seccomp`, `limits` (and capabilities), `processes` (the runner's side).
"""

from __future__ import annotations

import os
import signal
import sys

from normkata.grading.sandbox import landlock
from normkata.grading.sandbox.kernel import PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG, load_libc, prctl
from normkata.grading.sandbox.limits import drop_capabilities, set_limits
from normkata.grading.sandbox.policy import (
    CORE,
    Policy,
    SandboxLevel,
    carve,
    default_denied,
    default_devices,
    default_listable,
    default_readable,
    elf_interpreter,
    executable_files,
)
from normkata.grading.sandbox.processes import (
    child_pids,
    descendants,
    harden_runner,
    kill_descendants,
    kill_process_group,
    spawn_worker,
)
from normkata.grading.sandbox.seccomp import import_pyseccomp, install_filter

__all__ = [
    "CORE",
    "Policy",
    "SandboxLevel",
    "confine",
    "prepare",
    "default_denied",
    "default_devices",
    "default_listable",
    "default_readable",
    "elf_interpreter",
    "executable_files",
    "harden_runner",
    "child_pids",
    "descendants",
    "kill_descendants",
    "kill_process_group",
    "landlock_abi",
    "seccomp_available",
    "spawn_worker",
]


def confine(policy: Policy) -> SandboxLevel:
    """Confine this process for good; returns what is in force. Never raises.

    Call it after torch is imported and warmed up and before any learner code runs: it cannot
    be undone, and lazy imports of normkata stop working. The learner's file must be in
    `policy.readable` (or copied into `policy.scratch`). Descriptors already open stay usable
    (Landlock checks at open time): pass the worker only its pipes and log. The parent-death
    signal fires when the *thread* that started this process exits: start the worker from the
    runner's main thread.
    """
    active: list[str] = []
    missing: list[str] = []
    libc = load_libc()
    if libc is None:
        return SandboxLevel((), (f"everything (no Linux confinement on {sys.platform})",))
    try:
        policy.scratch.mkdir(parents=True, exist_ok=True)
        seccomp_module = import_pyseccomp()  # before Landlock: loading libraries may need paths it hides
        set_limits(policy, active, missing)
        try:
            prctl(libc, PR_SET_PDEATHSIG, signal.SIGKILL)
            if policy.parent_pid is not None and os.getppid() != policy.parent_pid:
                os.kill(os.getpid(), signal.SIGKILL)  # the runner died before we could watch it
            active.append("parent-death signal")
        except OSError as exc:
            missing.append(f"parent-death signal ({exc.strerror})")
        try:
            prctl(libc, PR_SET_NO_NEW_PRIVS, 1)
            active.append("no_new_privs")
        except OSError as exc:
            missing.append(f"no_new_privs ({exc.strerror})")
        drop_capabilities(libc, active, missing)
        landlock.restrict(libc, policy, active, missing)
        # tempfile and libraries that honour TMPDIR write where writing is allowed.
        os.environ["TMPDIR"] = str(policy.scratch)
        import tempfile

        tempfile.tempdir = None
        # last: it forbids prctl and setrlimit calls made above
        install_filter(seccomp_module, active, missing, spawn=bool(policy.executables))
    except Exception as exc:  # a bug here must weaken the report, not crash the worker silently
        missing.append(f"confinement stopped early ({type(exc).__name__}: {exc})")
    return SandboxLevel(tuple(active), tuple(missing))


def prepare() -> None:
    """Do ahead what `confine` needs whatever the policy (find the default folders, resolve them,
    load libseccomp), so confining a worker that was started before its grade is quick."""
    carve(default_readable(), default_denied())
    import_pyseccomp()


# -- what this machine offers (normkata doctor) ---------------------------------------------------


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where there is none (or not Linux)."""
    libc = load_libc()
    return landlock.kernel_abi(libc) if libc is not None else 0


def seccomp_available() -> bool:
    """Whether seccomp filters can be built here (pyseccomp over the system's libseccomp)."""
    return not isinstance(import_pyseccomp(), str)
