"""Operating-system confinement for the process that runs a learner's code.

The worker calls `confine()` on itself once torch is imported and warmed up (a forward and a
backward in each dtype, so kernels and lazy imports are loaded) and before it imports the
learner's file. From then on the process, and the learner's code in it, is held to:

- **no_new_privs** and no capabilities (root included): nothing it does can gain privileges.
- **parent-death signal**: SIGKILL when the runner that started it dies.
- **Landlock** (filesystem): read-only on `Policy.readable`, read-write only in
  `Policy.scratch`, nothing executable anywhere. Landlock is an allow-list, so the normkata
  package, the hidden suites and the reference solutions are left out by *not* allowing them:
  a readable folder that contains one of `Policy.denied` is allowed entry by entry around it
  (site-packages minus `normkata*`). Where the kernel's ABI has them, TCP bind/connect,
  abstract UNIX sockets and signals to processes outside the sandbox are denied too.
- **seccomp**: no new processes (fork, vfork, clone without CLONE_THREAD, clone3, exec), no
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

No descendant survives a grade: seccomp stops the worker from creating processes at all; where
seccomp is missing, the worker runs in a session and process group of its own
(`spawn_worker`), `kill_process_group` ends that group, and the runner, a child subreaper
after `harden_runner()`, adopts anything that left the group, so `kill_descendants()` still
finds it.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import platform
import resource
import signal
import site
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

__all__ = [
    "CORE",
    "Policy",
    "SandboxLevel",
    "confine",
    "default_denied",
    "default_devices",
    "default_listable",
    "default_readable",
    "harden_runner",
    "child_pids",
    "descendants",
    "kill_descendants",
    "kill_process_group",
    "landlock_abi",
    "seccomp_available",
    "spawn_worker",
]

# -- what the caller asks for -------------------------------------------------------------------


@dataclass(frozen=True)
class Policy:
    """What the confined process may still do.

    `readable` paths are read-only (folders with all they contain); `scratch` is the one place
    it may create and write files; `devices` are character devices it may read, write and
    ioctl (/dev/null, GPUs). `denied` paths stay unreadable even inside a readable folder;
    `listable` folders may be listed, not read (site-packages, around normkata).
    `cpu_seconds` counts from the call to `confine()` (torch's import is not charged);
    `extra_address_space_bytes` is added to what the process has mapped at that moment (torch
    reserves more with more threads) and None leaves the address space unlimited.
    """

    scratch: Path
    readable: tuple[Path, ...] = field(default_factory=lambda: default_readable())
    denied: tuple[Path, ...] = field(default_factory=lambda: default_denied())
    listable: tuple[Path, ...] = field(default_factory=lambda: default_listable())
    devices: tuple[Path, ...] = field(default_factory=lambda: default_devices())
    cpu_seconds: int = 60
    file_size_bytes: int = 64 * 1024**2
    extra_address_space_bytes: int | None = 4 * 1024**3
    open_files: int = 256
    #: The runner's pid: if it is already gone when confine() runs, the process kills itself.
    parent_pid: int | None = None


# The protections a "full" level has; the rest of `active` are details (Landlock's ABI, ...).
CORE = ("no_new_privs", "capabilities", "parent-death signal", "filesystem", "system calls", "resource limits")


@dataclass(frozen=True)
class SandboxLevel:
    """Which protections are in force; `str()` gives the line a report shows."""

    active: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def name(self) -> Literal["full", "partial", "off"]:
        core_active = [p for p in CORE if any(a.split(" (")[0] == p for a in self.active)]
        if len(core_active) == len(CORE) and not self.missing:
            return "full"
        return "partial" if core_active else "off"

    def describe(self) -> str:
        """The report line: `full`, `partial: missing A; B` or `off: missing A`."""
        if self.name == "full":
            return "full"
        return f"{self.name}: missing " + "; ".join(self.missing)

    def __str__(self) -> str:
        return self.describe()


# -- the paths a Python process with torch needs --------------------------------------------------

# Shared libraries, the loader's cache, time zones and locales: torch and extension modules
# imported lazily after confine() (sympy, numpy.linalg, ...) dlopen from here.
_SYSTEM_READABLE = (
    "/lib",
    "/lib64",
    "/lib32",
    "/usr/lib",
    "/usr/lib64",
    "/usr/local/lib",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/usr/share/zoneinfo",
    "/usr/share/locale",
    # Read by torch and numpy at run time (measured with strace after warm-up): the memory
    # overcommit mode and CPU topology.
    "/proc/sys/vm/overcommit_memory",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/sys/devices/system/cpu",
    # Its own /proc entries (maps, status, fd): /proc/self is this process's own folder.
    "/proc/self",
)


def _normkata_names(name: str) -> bool:
    """An entry of site-packages that belongs to normkata (package, dist-info, editable hooks)."""
    lowered = name.lower()
    return lowered.startswith(("normkata", "_normkata", "__editable__.normkata", "_editable_impl_normkata"))


def _site_packages() -> list[Path]:
    found: list[str] = []
    with contextlib.suppress(AttributeError):  # virtualenv's old site.py has no getsitepackages
        found.extend(site.getsitepackages())
    with contextlib.suppress(AttributeError):
        found.append(site.getusersitepackages())
    for key in ("purelib", "platlib"):
        with contextlib.suppress(KeyError):
            found.append(sysconfig.get_paths()[key])
    return _existing(found)


def default_denied() -> tuple[Path, ...]:
    """normkata's package folders and its content (hidden suites, references, quizzes).

    Covers a checkout (package and content beside each other), a wheel (content under
    normkata/_content) and an editable install (a normkata folder in site-packages holding
    _content, plus the checkout it points to).
    """
    package = Path(__file__).resolve().parents[1]
    candidates = [package, package / "_content"]
    for content in (package / "_content", package.parent):
        candidates.extend(content / name for name in ("katas", "solutions", "quizzes"))
    for folder in _site_packages():
        with contextlib.suppress(OSError):
            candidates.extend(entry for entry in folder.iterdir() if _normkata_names(entry.name))
    return tuple(dict.fromkeys(_existing(candidates)))


def default_readable() -> tuple[Path, ...]:
    """What Python and torch need after confinement, without normkata or its content.

    The standard library and site-packages of both sys.prefix and sys.base_prefix, system
    libraries, a few /proc and /sys files. Folders holding one of `default_denied()` (a
    site-packages with normkata installed in it) are expanded entry by entry around it.
    """
    return _default_carve()[0]


@functools.lru_cache(maxsize=1)
def _default_carve() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    return _carve(_default_roots(), default_denied())


def _default_roots() -> list[Path]:
    roots: list[str | Path] = list(_SYSTEM_READABLE)
    for prefix_paths in (sysconfig.get_paths(), sysconfig.get_paths(vars={"base": sys.base_prefix})):
        roots.extend(prefix_paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in prefix_paths)
    roots.extend(_site_packages())
    return _existing(roots)


def default_listable() -> tuple[Path, ...]:
    """Folders that may be listed but not read: those `default_readable()` allows entry by entry."""
    return _default_carve()[1]


def default_devices(dev: Path = Path("/dev")) -> tuple[Path, ...]:
    """Character devices to keep usable: /dev/null and friends, and NVIDIA GPUs when present
    (nvidia0..N, nvidiactl, nvidia-uvm, nvidia-uvm-tools and the nvidia-caps folder)."""
    names = [dev / name for name in ("null", "zero", "full", "random", "urandom")]
    with contextlib.suppress(OSError):
        names.extend(p for p in dev.iterdir() if p.name.startswith("nvidia"))
    return tuple(_existing(names))


def _existing(paths: Iterable[str | Path]) -> list[Path]:
    result: list[Path] = []
    for raw in paths:
        path = Path(raw)
        try:
            if path.exists():  # raises PermissionError on Python < 3.12 (~/.local of another user)
                result.append(path.resolve())
        except OSError:
            continue
    return list(dict.fromkeys(result))


def _inside(path: Path, folder: Path) -> bool:
    # On strings: PurePath.parents is slow enough to matter over site-packages' entries.
    inner, outer = str(path), str(folder)
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


def _carve(readable: Iterable[Path], denied: Iterable[Path]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """`readable` with every path in `denied` cut out of it, and the folders that were split.

    A readable path inside a denied one is dropped; a readable folder that contains a denied
    path is replaced by its entries, recursively, so the denied path is the only thing lost.
    The split folders stay listable (`Policy.listable`): names are not secrets, and Python's
    import system lists site-packages before it finds anything in it.
    """
    denied = [d.resolve() for d in denied]
    result: list[Path] = []
    split: list[Path] = []
    for path in readable:
        path = path.resolve()
        if any(_inside(path, d) for d in denied):
            continue
        if any(_inside(d, path) for d in denied) and path.is_dir():
            split.append(path)
            with contextlib.suppress(OSError):
                inner, inner_split = _carve(sorted(path.iterdir()), denied)
                result.extend(inner)
                split.extend(inner_split)
            continue
        result.append(path)
    return tuple(dict.fromkeys(result)), tuple(dict.fromkeys(split))


# -- libc -------------------------------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_CHILD_SUBREAPER = 36
_CLONE_THREAD = 0x00010000
_TIOCSTI = 0x5412
_TIOCLINUX = 0x541C


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    libc.syscall.restype = ctypes.c_long
    libc.prctl.restype = ctypes.c_int
    return libc


def _prctl(libc: ctypes.CDLL, option: int, arg: int) -> None:
    if libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


# -- Landlock -------------------------------------------------------------------------------------

# Same numbers on every architecture Linux gives them to (the unified syscall table since 5.x).
_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_ARCHES = {"x86_64", "amd64", "aarch64", "arm64", "riscv64", "ppc64le", "s390x"}
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1

_FS_EXECUTE = 1 << 0
_FS_WRITE_FILE = 1 << 1
_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
_FS_REMOVE_DIR = 1 << 4
_FS_REMOVE_FILE = 1 << 5
_FS_MAKE_CHAR = 1 << 6
_FS_MAKE_DIR = 1 << 7
_FS_MAKE_REG = 1 << 8
_FS_MAKE_SOCK = 1 << 9
_FS_MAKE_FIFO = 1 << 10
_FS_MAKE_BLOCK = 1 << 11
_FS_MAKE_SYM = 1 << 12
_FS_REFER = 1 << 13  # ABI 2
_FS_TRUNCATE = 1 << 14  # ABI 3
_FS_IOCTL_DEV = 1 << 15  # ABI 5
_NET_BIND_TCP = 1 << 0  # ABI 4
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
_SCOPE_SIGNAL = 1 << 1

_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_FILE_RIGHTS = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_READ = _FS_READ_FILE | _FS_READ_DIR
_SCRATCH = (
    _READ
    | _FS_WRITE_FILE
    | _FS_REMOVE_DIR
    | _FS_REMOVE_FILE
    | _FS_MAKE_DIR
    | _FS_MAKE_REG
    | _FS_MAKE_SYM
    | _FS_MAKE_FIFO
    | _FS_REFER
    | _FS_TRUNCATE
)
_DEVICE = _FS_READ_FILE | _FS_WRITE_FILE | _FS_IOCTL_DEV


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is __attribute__((packed))
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _landlock_abi(libc: ctypes.CDLL) -> int:
    if platform.machine().lower() not in _LANDLOCK_ARCHES:
        return 0
    abi = int(libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), _LANDLOCK_CREATE_RULESET_VERSION))
    return max(abi, 0)


def _landlock(libc: ctypes.CDLL, policy: Policy, active: list[str], missing: list[str]) -> None:
    abi = _landlock_abi(libc)
    if abi <= 0:
        missing.append("filesystem (this kernel has no Landlock)")
        return
    handled = _FS_BY_ABI[max(k for k in _FS_BY_ABI if k <= abi)]
    attr = _RulesetAttr(handled_access_fs=handled)
    size = 8  # ABI 1-3 know only handled_access_fs; a larger struct with zeros is fine but not needed
    if abi >= 4:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL
        size = 24
    ruleset = int(libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0))
    if ruleset < 0:
        missing.append(f"filesystem (landlock_create_ruleset: {os.strerror(ctypes.get_errno())})")
        return
    try:
        readable, split = _carve(policy.readable, policy.denied)
        rules: list[tuple[Path, int]] = [(p, _READ) for p in readable]
        rules += [(p, _FS_READ_DIR) for p in (*policy.listable, *split)]
        rules += [(p, _DEVICE) for p in policy.devices]
        rules.append((policy.scratch, _SCRATCH))
        for path, rights in rules:
            _add_path_rule(libc, ruleset, path, rights & handled)
        if libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            missing.append(f"filesystem (landlock_restrict_self: {os.strerror(ctypes.get_errno())})")
            return
    finally:
        os.close(ruleset)
    active.append(f"filesystem (Landlock ABI {abi})")
    if abi >= 4:
        active.append("tcp bind/connect (Landlock)")
    if abi >= 6:
        active.append("signals and abstract sockets scoped (Landlock)")


def _add_path_rule(libc: ctypes.CDLL, ruleset: int, path: Path, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # gone since it was listed: nothing to allow
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS  # directory rights on a file are EINVAL
        rule = _PathBeneathAttr(allowed_access=rights, parent_fd=fd)
        # A path the kernel refuses (a special filesystem) only means that path stays unreadable.
        libc.syscall(_SYS_LANDLOCK_ADD_RULE, ruleset, _LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(rule), 0)
    finally:
        os.close(fd)


# -- seccomp ------------------------------------------------------------------------------------

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


def _import_pyseccomp() -> Any:
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


def _seccomp(sc: Any, active: list[str], missing: list[str]) -> None:
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
            _rule(f, deny, name)
        # clone: threads only. glibc tries clone3 first and falls back to clone on ENOSYS;
        # clone3's flags sit in memory that a filter cannot read, hence ENOSYS, not EPERM.
        _rule(f, deny, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
        _rule(f, sc.ERRNO(errno.ENOSYS), "clone3")
        # Signals: only to itself (abort() and raise() use tgkill/kill on our own pid).
        for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
            _rule(f, deny, name, sc.Arg(0, sc.NE, pid))
        # prlimit64 reads its own limits; it may neither set them nor touch another process's.
        _rule(f, deny, "prlimit64", sc.Arg(0, sc.NE, 0))
        _rule(f, deny, "prlimit64", sc.Arg(2, sc.NE, 0))
        # The parent-death signal must stay SIGKILL.
        _rule(f, deny, "prctl", sc.Arg(0, sc.EQ, _PR_SET_PDEATHSIG))
        # Typing into the terminal the grade was started from; a file's attribute flags.
        for request in (_TIOCSTI, _TIOCLINUX, _FS_IOC_SETFLAGS, _FS_IOC_FSSETXATTR):
            _rule(f, deny, "ioctl", sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, request))
        # personality() may be queried, not changed (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE).
        _rule(f, deny, "personality", sc.Arg(0, sc.NE, 0xFFFFFFFF))
        f.load()
    except (OSError, ValueError, RuntimeError) as exc:
        missing.append(f"system calls (seccomp: {exc})")
        return
    active.append("system calls (seccomp)")


def _rule(f: Any, action: int, name: str, *args: Any) -> None:
    for syscall in (name, _UNIFIED_NUMBERS.get(name)):
        if syscall is None:
            return  # a syscall this architecture or libseccomp does not have cannot be called either
        try:
            f.add_rule(action, syscall, *args)
            return
        except (OSError, ValueError, RuntimeError):
            continue


# -- resource limits and capabilities -----------------------------------------------------------


def _address_space_now() -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _limits(policy: Policy, active: list[str], missing: list[str]) -> None:
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


def _drop_capabilities(libc: ctypes.CDLL, active: list[str], missing: list[str]) -> None:
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


# -- the entry point ------------------------------------------------------------------------------


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
    libc = _libc()
    if libc is None:
        return SandboxLevel((), (f"everything (no Linux confinement on {sys.platform})",))
    try:
        policy.scratch.mkdir(parents=True, exist_ok=True)
        seccomp_module = _import_pyseccomp()  # before Landlock: loading libraries may need paths it hides
        _limits(policy, active, missing)
        try:
            _prctl(libc, _PR_SET_PDEATHSIG, signal.SIGKILL)
            if policy.parent_pid is not None and os.getppid() != policy.parent_pid:
                os.kill(os.getpid(), signal.SIGKILL)  # the runner died before we could watch it
            active.append("parent-death signal")
        except OSError as exc:
            missing.append(f"parent-death signal ({exc.strerror})")
        try:
            _prctl(libc, _PR_SET_NO_NEW_PRIVS, 1)
            active.append("no_new_privs")
        except OSError as exc:
            missing.append(f"no_new_privs ({exc.strerror})")
        _drop_capabilities(libc, active, missing)
        _landlock(libc, policy, active, missing)
        # tempfile and libraries that honour TMPDIR write where writing is allowed.
        os.environ["TMPDIR"] = str(policy.scratch)
        import tempfile

        tempfile.tempdir = None
        _seccomp(seccomp_module, active, missing)  # last: it forbids prctl and setrlimit calls made above
    except Exception as exc:  # a bug here must weaken the report, not crash the worker silently
        missing.append(f"confinement stopped early ({type(exc).__name__}: {exc})")
    return SandboxLevel(tuple(active), tuple(missing))


# -- the runner's side --------------------------------------------------------------------------


def harden_runner() -> None:
    """For the trusted runner: not dumpable, and the adopter of orphaned descendants.

    PR_SET_DUMPABLE 0 makes /proc/<runner>/mem and ptrace unusable by same-uid processes (the
    worker) even if confinement is partial. PR_SET_CHILD_SUBREAPER makes the runner adopt any
    grandchild that outlives its parent, so `kill_descendants()` can find it. Never raises.
    """
    libc = _libc()
    if libc is None:
        return
    for option in (_PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER):
        with contextlib.suppress(OSError):
            _prctl(libc, option, 0 if option == _PR_SET_DUMPABLE else 1)


def spawn_worker(
    argv: Sequence[str],
    *,
    pass_fds: Sequence[int] = (),
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    stdout: int | IO[Any] | None = subprocess.DEVNULL,
    stderr: int | IO[Any] | None = subprocess.DEVNULL,
) -> subprocess.Popen[bytes]:
    """Start the worker in a session and process group of its own (pgid == its pid).

    No terminal, no stdin, no inherited descriptors but `pass_fds`: a detached grandchild can
    hold only what the worker had, and `kill_process_group(process.pid)` reaches all of them.
    """
    return subprocess.Popen(
        list(argv),
        pass_fds=tuple(pass_fds),
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        close_fds=True,
        start_new_session=True,
    )


def kill_process_group(pgid: int) -> None:
    """SIGKILL every process in the group (the worker's pid after `spawn_worker`). Never raises."""
    if pgid <= 1 or not hasattr(os, "killpg"):
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            # "pid (comm) state ppid ...": comm may contain spaces and parentheses.
            fields = stat[stat.rfind(")") + 2 :].split()
            if len(fields) >= 2 and fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    return children


def child_pids() -> list[int]:
    """This process's live children (Linux; elsewhere [])."""
    return _children_map().get(os.getpid(), [])


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid`, children first (Linux: read from /proc; elsewhere [])."""
    children = _children_map()
    found: list[int] = []
    stack = list(children.get(pid, []))
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(children.get(child, []))
    return found


def kill_descendants(exclude: Iterable[int] = ()) -> list[int]:
    """SIGKILL every live descendant of this process except `exclude`; returns their pids.

    Run it after the worker's own Popen has been waited for: with `harden_runner()` in force,
    processes that left the worker's group (setsid, double fork) were adopted by this process
    and are found here. Zombies are reaped when they are our children and not excluded.
    Linux only (reads /proc); elsewhere returns [].
    """
    if not Path("/proc/self/stat").exists():
        return []
    skip = set(exclude)
    found = [pid for pid in descendants(os.getpid()) if pid not in skip]
    for pid in found:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 2.0
    for pid in found:
        # Reap our own children (adopted ones included); others' children are theirs to reap.
        while time.monotonic() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] != 0:
                    break
            except ChildProcessError:
                break
            time.sleep(0.01)
    return found


# -- what this machine offers (normkata doctor) ---------------------------------------------------


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where there is none (or not Linux)."""
    libc = _libc()
    return _landlock_abi(libc) if libc is not None else 0


def seccomp_available() -> bool:
    """Whether seccomp filters can be built here (pyseccomp over the system's libseccomp)."""
    return not isinstance(_import_pyseccomp(), str)
