"""Resource limits and capabilities: CPU, file size, address space, open files, no core dumps."""

from __future__ import annotations

import ctypes
import os
import platform
import resource
from pathlib import Path

from normkata.grading.sandbox.policy import Policy


def _address_space_now() -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def set_limits(policy: Policy, active: list[str], missing: list[str]) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(usage.ru_utime + usage.ru_stime) + 1
    # CPU: SIGXCPU at the soft limit, SIGKILL a second later at the hard one (SIGXCPU can be caught).
    wanted: list[tuple[str, int, int]] = [
        ("RLIMIT_CPU", spent + policy.cpu_seconds, spent + policy.cpu_seconds + 1),
        ("RLIMIT_FSIZE", policy.file_size_bytes, policy.file_size_bytes),
        ("RLIMIT_NOFILE", policy.open_files, policy.open_files),
        ("RLIMIT_CORE", 0, 0),
        ("RLIMIT_MSGQUEUE", 0, 0),
    ]
    if policy.extra_address_space_bytes is not None:
        now = _address_space_now()
        if now is None:
            missing.append("resource limits (address space: /proc/self/status unreadable)")
        else:
            limit = now + policy.extra_address_space_bytes
            wanted.append(("RLIMIT_AS", limit, limit))
    # RLIMIT_NPROC is left alone: it counts every process and thread of the user, on the whole
    # machine, so no value both stops a fork bomb and lets torch start its threads. seccomp
    # stops process creation instead.
    failed: list[str] = []
    for name, soft, hard in wanted:
        which = getattr(resource, name, None)
        if which is None:
            continue
        try:
            _, old_hard = resource.getrlimit(which)
            if old_hard != resource.RLIM_INFINITY:
                soft, hard = min(soft, old_hard), min(hard, old_hard)
            resource.setrlimit(which, (soft, hard))
        except (OSError, ValueError):
            failed.append(name)
    if failed:
        missing.append("resource limits (" + ", ".join(failed) + ")")
    else:
        active.append("resource limits")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


_SYS_CAPSET = {"x86_64": 126, "amd64": 126, "aarch64": 91, "arm64": 91, "riscv64": 91}


def drop_capabilities(libc: ctypes.CDLL, active: list[str], missing: list[str]) -> None:
    """Empty the effective, permitted and inheritable sets: root becomes an ordinary user."""
    number = _SYS_CAPSET.get(platform.machine().lower())
    if number is None:
        if os.geteuid() == 0:
            missing.append("capabilities (unknown architecture)")
        else:
            active.append("capabilities (none held)")
        return
    header = _CapHeader(version=0x20080522, pid=0)  # _LINUX_CAPABILITY_VERSION_3: two data structs
    data = (_CapData * 2)()
    if libc.syscall(number, ctypes.byref(header), data) != 0:
        missing.append(f"capabilities (capset: {os.strerror(ctypes.get_errno())})")
        return
    active.append("capabilities (all dropped)")
