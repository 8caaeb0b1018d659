"""Landlock: the filesystem allow-list (and, where the ABI has them, TCP and signal scoping).

Three system calls and two small structs through ctypes: the PyPI bindings are pre-releases,
and the kernel's ABI must be checked here anyway."""

from __future__ import annotations

import ctypes
import os
import platform
from pathlib import Path

from normkata.grading.sandbox.policy import Policy, carve, executable_files

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


def kernel_abi(libc: ctypes.CDLL) -> int:
    if platform.machine().lower() not in _LANDLOCK_ARCHES:
        return 0
    abi = int(libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), _LANDLOCK_CREATE_RULESET_VERSION))
    return max(abi, 0)


def restrict(libc: ctypes.CDLL, policy: Policy, active: list[str], missing: list[str]) -> None:
    abi = kernel_abi(libc)
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
        readable, split = carve(policy.readable, policy.denied)
        rules: list[tuple[Path, int]] = [(p, _READ) for p in readable]
        rules += [(p, _FS_READ_DIR) for p in (*policy.listable, *split)]
        rules += [(p, _DEVICE) for p in policy.devices]
        rules += [(p, _FS_READ_FILE | _FS_EXECUTE) for p in executable_files(policy.executables)]
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
