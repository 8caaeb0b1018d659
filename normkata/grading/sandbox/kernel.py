"""libc through ctypes, and the prctl options the sandbox sets."""

from __future__ import annotations

import ctypes
import os
import sys

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
CLONE_THREAD = 0x00010000
CLONE_VM = 0x00000100
CLONE_VFORK = 0x00004000
TIOCSTI = 0x5412
TIOCLINUX = 0x541C


def load_libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    libc.syscall.restype = ctypes.c_long
    libc.prctl.restype = ctypes.c_int
    return libc


def prctl(libc: ctypes.CDLL, option: int, arg: int) -> None:
    if libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
