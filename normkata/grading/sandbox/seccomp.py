"""seccomp: the system calls the confined process may not make, filtered with pyseccomp."""

from __future__ import annotations

import contextlib
import errno
import os
from typing import Any

from normkata.grading.sandbox.kernel import CLONE_THREAD, CLONE_VFORK, CLONE_VM, PR_SET_PDEATHSIG, TIOCLINUX, TIOCSTI

# Denied outright. Names this libseccomp or architecture does not know are skipped.
_DENIED_SYSCALLS = (
    # new programs and processes (threads go through clone with CLONE_THREAD, allowed below)
    "fork",
    "vfork",
    "execve",
    "execveat",
    # other processes: their memory, their signals, their file descriptors
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "process_madvise",
    "kcmp",
    "pidfd_open",
    "pidfd_getfd",
    "pidfd_send_signal",
    "tkill",
    "migrate_pages",
    "move_pages",
    # leaving the process group that the runner kills
    "setsid",
    "setpgid",
    # limits stay as confine() set them
    "setrlimit",
    # the network (torch needs no socket on CPU or CUDA; socketpair stays for in-process use)
    "socket",
    # privileges, namespaces, mounts, the kernel itself
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setgroups",
    "setfsuid",
    "setfsgid",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "quotactl",
    "swapon",
    "swapoff",
    "reboot",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "acct",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "name_to_handle_at",
    "open_by_handle_at",
    "iopl",
    "ioperm",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "syslog",
    "vhangup",
    "uselib",
    "mknod",
    "mknodat",
    # io_uring runs file and network operations outside this filter's view
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    # metadata: Landlock governs contents, not modes, owners, times or attributes, and an owner
    # (root with no capabilities included) may change those of any file it can open for reading:
    # its class folder, a classmate's file, the installation. The worker needs none of them (its
    # scratch files are created with their modes), so every form is refused, by path or by
    # descriptor. setxattr covers ACLs (system.posix_acl_access), which are modes too.
    "chmod",
    "fchmod",
    "fchmodat",
    "fchmodat2",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "setxattrat",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
    "removexattrat",
    "file_setattr",
)

#: System calls newer than some libseccomp releases: since Linux 5.1 a new call has one number
#: on every architecture, so the filter can name it by number where libseccomp does not know it.
_UNIFIED_NUMBERS = {"fchmodat2": 452, "setxattrat": 463, "removexattrat": 466, "file_setattr": 469}
#: ioctls that change a file's attributes (chattr: append-only, no-dump, ...; project ids).
_FS_IOC_SETFLAGS = 0x40086602
_FS_IOC_FSSETXATTR = 0x401C5820


def import_pyseccomp() -> Any:
    """pyseccomp, or the reason it cannot be used.

    pyseccomp looks libc and libseccomp up with ctypes.util.find_library, which runs
    `ldconfig -p` (twice, ~10 ms each, and impossible once Landlock forbids exec). Where the
    sonames load directly, the lookup is answered without a subprocess.
    """
    import ctypes.util

    known = {"c": "libc.so.6", "seccomp": "libseccomp.so.2"}
    original = ctypes.util.find_library

    def find_library(name: str) -> str | None:
        soname = known.get(name)
        if soname is not None:
            with contextlib.suppress(OSError):
                ctypes.CDLL(soname)
                return soname
        return original(name)

    ctypes.util.find_library = find_library
    try:
        import pyseccomp  # type: ignore[import-untyped]  # ctypes over libseccomp; ships no stubs
    except (ImportError, RuntimeError, OSError) as exc:  # RuntimeError: libseccomp not found
        return f"pyseccomp unavailable: {exc}"
    finally:
        ctypes.util.find_library = original
    return pyseccomp


#: What a process that may start its allowed programs (Policy.executables) may call besides:
#: subprocess's vfork and the exec that follows it. Which programs exec can start is Landlock's
#: rule (only those files are executable); fork and every other clone stay forbidden.
_SPAWN_SYSCALLS = ("vfork", "execve", "execveat")


def install_filter(sc: Any, active: list[str], missing: list[str], *, spawn: bool = False) -> None:
    """Deny the calls above; `spawn`: allow vfork-style children and exec (Policy.executables)."""
    if isinstance(sc, str):
        missing.append(f"system calls ({sc})")
        return
    deny = sc.ERRNO(errno.EPERM)
    pid = os.getpid()
    try:
        f = sc.SyscallFilter(sc.ALLOW)
        # A syscall made with another architecture's numbers (int 0x80, x32) would dodge the rules.
        f.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)
        for name in _DENIED_SYSCALLS:
            if not (spawn and name in _SPAWN_SYSCALLS):
                _rule(f, deny, name)
        # clone: threads only (and, with `spawn`, a vfork: CLONE_VM | CLONE_VFORK, the child
        # sharing this memory and this process stopped until it execs or exits, which is how
        # glibc's posix_spawn and CPython's subprocess start a program). glibc tries clone3 first
        # and falls back to clone on ENOSYS; clone3's flags sit in memory that a filter cannot
        # read, hence ENOSYS, not EPERM.
        if spawn:
            flags = CLONE_THREAD | CLONE_VM | CLONE_VFORK
            for refused in (0, CLONE_VM, CLONE_VFORK):
                _rule(f, deny, "clone", sc.Arg(0, sc.MASKED_EQ, flags, refused))
        else:
            _rule(f, deny, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
        _rule(f, sc.ERRNO(errno.ENOSYS), "clone3")
        # Signals: only to itself (abort() and raise() use tgkill/kill on our own pid).
        for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
            _rule(f, deny, name, sc.Arg(0, sc.NE, pid))
        # prlimit64 reads its own limits; it may neither set them nor touch another process's.
        _rule(f, deny, "prlimit64", sc.Arg(0, sc.NE, 0))
        _rule(f, deny, "prlimit64", sc.Arg(2, sc.NE, 0))
        # The parent-death signal must stay SIGKILL.
        _rule(f, deny, "prctl", sc.Arg(0, sc.EQ, PR_SET_PDEATHSIG))
        # Typing into the terminal the grade was started from; a file's attribute flags.
        for request in (TIOCSTI, TIOCLINUX, _FS_IOC_SETFLAGS, _FS_IOC_FSSETXATTR):
            _rule(f, deny, "ioctl", sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, request))
        # personality() may be queried, not changed (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE).
        _rule(f, deny, "personality", sc.Arg(0, sc.NE, 0xFFFFFFFF))
        f.load()
    except (OSError, ValueError, RuntimeError) as exc:
        missing.append(f"system calls (seccomp: {exc})")
        return
    active.append("system calls (seccomp)" + (", spawning only the allowed programs" if spawn else ""))


def _rule(f: Any, action: int, name: str, *args: Any) -> None:
    for syscall in (name, _UNIFIED_NUMBERS.get(name)):
        if syscall is None:
            return  # a syscall this architecture or libseccomp does not have cannot be called either
        try:
            f.add_rule(action, syscall, *args)
            return
        except (OSError, ValueError, RuntimeError):
            continue
