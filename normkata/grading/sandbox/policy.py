"""What the caller asks of the confinement (`Policy`), what it got (`SandboxLevel`), and the
paths a Python process with torch needs, normkata's own left out."""

from __future__ import annotations

import contextlib
import functools
import site
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

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
    #: Programs the process may start, nothing else (empty: none at all). For a GPU's kernel
    #: compiler: Triton's ptxas. Each gets the loader its ELF header names (`executable_files`),
    #: and the process may spawn as subprocess does (vfork, then exec); see seccomp.py.
    executables: tuple[Path, ...] = ()


def elf_interpreter(path: Path) -> Path | None:
    """The program loader a dynamically linked ELF executable names (its PT_INTERP), resolved;
    None for a static executable or a file that is not a 64-bit little-endian ELF."""
    import struct

    try:
        with open(path, "rb") as f:
            header = f.read(64)
            if len(header) < 64 or header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
                return None
            (phoff,) = struct.unpack_from("<Q", header, 32)
            phentsize, phnum = struct.unpack_from("<HH", header, 54)
            for index in range(min(phnum, 256)):
                f.seek(phoff + index * phentsize)
                p_type, _flags, offset, _vaddr, _paddr, size = struct.unpack("<IIQQQQ", f.read(40))
                if p_type == 3:  # PT_INTERP: the loader's path, NUL-terminated
                    f.seek(offset)
                    loader = f.read(min(size, 4096)).split(b"\0", 1)[0].decode("utf-8", "replace")
                    return Path(loader).resolve()
    except (OSError, struct.error):
        return None
    return None


def executable_files(programs: Iterable[Path]) -> tuple[Path, ...]:
    """What must be executable for `programs` to start: each (resolved) and the loader it names.

    The kernel opens a dynamic executable's loader for execution too, so the loader is
    executable as well; started by hand (`ld.so PROGRAM`) it could run any readable program,
    which then runs under the same seccomp filter, Landlock domain and limits as the process
    (they are inherited and cannot be dropped): no more than the process could do itself."""
    found: list[Path] = []
    for program in programs:
        resolved = Path(program).resolve()
        if not resolved.is_file():
            continue
        found.append(resolved)
        loader = elf_interpreter(resolved)
        if loader is not None and loader.is_file():
            found.append(loader)
    return tuple(dict.fromkeys(found))


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
    package = Path(__file__).resolve().parents[2]
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
    return _defaultcarve()[0]


@functools.lru_cache(maxsize=1)
def _defaultcarve() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    return carve(_default_roots(), default_denied())


def _default_roots() -> list[Path]:
    roots: list[str | Path] = list(_SYSTEM_READABLE)
    for prefix_paths in (sysconfig.get_paths(), sysconfig.get_paths(vars={"base": sys.base_prefix})):
        roots.extend(prefix_paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in prefix_paths)
    roots.extend(_site_packages())
    return _existing(roots)


def default_listable() -> tuple[Path, ...]:
    """Folders that may be listed but not read: those `default_readable()` allows entry by entry."""
    return _defaultcarve()[1]


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


@functools.lru_cache(maxsize=4096)
def _resolved(path: Path) -> Path:
    """`path.resolve()`, once per path in a process: a worker carves the same system folders for
    every grade's policy, and resolving them all is most of what confining costs."""
    return path.resolve()


def carve(readable: Iterable[Path], denied: Iterable[Path]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """`readable` with every path in `denied` cut out of it, and the folders that were split.

    A readable path inside a denied one is dropped; a readable folder that contains a denied
    path is replaced by its entries, recursively, so the denied path is the only thing lost.
    The split folders stay listable (`Policy.listable`): names are not secrets, and Python's
    import system lists site-packages before it finds anything in it.
    """
    denied = [_resolved(d) for d in denied]
    result: list[Path] = []
    split: list[Path] = []
    for path in readable:
        path = _resolved(path)
        if any(_inside(path, d) for d in denied):
            continue
        if any(_inside(d, path) for d in denied) and path.is_dir():
            split.append(path)
            with contextlib.suppress(OSError):
                inner, inner_split = carve(sorted(path.iterdir()), denied)
                result.extend(inner)
                split.extend(inner_split)
            continue
        result.append(path)
    return tuple(dict.fromkeys(result)), tuple(dict.fromkeys(split))
