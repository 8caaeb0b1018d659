"""What one launcher call did, as the worker saw it: the tensors its kernels were given, what
they read and wrote out of bounds, which kernels ran, which memory they wrote, and the tensors
the launcher allocated (between sentinel margins).

Plain bookkeeping, no Triton: the guard (guard.py) and the launcher runner (launcher.py) fill
it in; only facts leave the worker, and the runner draws the conclusions (kernel_checks.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_leaves

from normkata.grading.messages import SENTINEL, Access, Side

#: Elements of sentinel margin before and after every tensor the launcher allocates.
MARGIN = 64
#: Grid index of a program (the interpreter runs one at a time).
GridIndex = tuple[int, int, int]
#: Findings kept per launch (a kernel without masks finds one per program).
MAX_FINDINGS = 40
#: Allocations whose margins are sent back (a launcher allocating in a loop sends the first ones).
MAX_ALLOCATIONS = 32
#: Storages larger than this are not tracked byte by byte (only the interpreter tracks at all,
#: and its tensors are small: a case's largest is a few hundred kB).
MAX_TRACKED_BYTES = 64 * 1024**2


def storage_key(t: torch.Tensor) -> int:
    """The address of the memory a tensor is a view of: how writes are matched to outputs."""
    return int(t.untyped_storage().data_ptr())


@dataclass
class Extent:
    """The bytes one kernel argument spans on the host (the memory the interpreter addresses)."""

    start: int  # first byte
    end: int  # one past the last byte
    name: str
    storage: int = 0  # storage_key of the tensor the launcher passed (its host copy may differ on CUDA)
    host_base: int = 0  # address of the host copy's storage: byte offsets are measured from here
    nbytes: int = 0  # the storage's size


def extent_of(t: torch.Tensor, name: str, device_tensor: torch.Tensor | None = None) -> Extent:
    """The bytes a tensor's elements span (gaps of a strided view included)."""
    source = device_tensor if device_tensor is not None else t
    storage = t.untyped_storage()
    common = {"storage": storage_key(source), "host_base": int(storage.data_ptr()), "nbytes": int(storage.nbytes())}
    if t.numel() == 0:
        return Extent(t.data_ptr(), t.data_ptr(), name, **common)
    low = sum((s - 1) * st for s, st in zip(t.shape, t.stride(), strict=True) if st < 0)
    high = sum((s - 1) * st for s, st in zip(t.shape, t.stride(), strict=True) if st > 0)
    size = t.element_size()
    return Extent(t.data_ptr() + low * size, t.data_ptr() + (high + 1) * size, name, **common)


@dataclass
class Watch:
    """One launcher call: the tensors it was given and made, and what the guard found."""

    named: list[tuple[torch.Tensor, str]]  # the grader's inputs
    allocated: list[tuple[torch.Tensor, torch.Tensor]] = field(default_factory=list)  # (margined base, view)
    extents: list[Extent] = field(default_factory=list)
    #: (access, tensor, program, side) -> lanes the guard switched off.
    findings: dict[tuple[Access, str, GridIndex, Side], int] = field(default_factory=dict)
    nan_filled: int = 0
    launches: list[str] = field(default_factory=list)
    #: storage_key -> one flag per byte of that storage: a kernel stored (or updated) there.
    written: dict[int, Any] = field(default_factory=dict)
    #: Storages the launcher computed with torch from memory a kernel wrote (Liger's dW = _dW.sum(0)).
    derived: set[int] = field(default_factory=set)
    quiet: int = 0  # > 0 while an autotune benchmark is replayed: the real launch reports
    in_kernel: int = 0  # > 0 while a kernel runs: torch calls made then are the interpreter's

    def name_of(self, t: torch.Tensor, fallback: str) -> str:
        for known, name in self.named:
            if known.data_ptr() == t.data_ptr() and known.shape == t.shape:
                return name
        for index, (_base, view) in enumerate(self.allocated):
            if view.data_ptr() == t.data_ptr():
                return f"@{index}"  # an allocated tensor: named once we know which output it is
        return fallback

    def add_kernel_args(self, names: list[str], args: list[Any], hosts: list[Any]) -> None:
        """Extents of the host tensors the interpreter will address, named after what they copy
        (a CUDA tensor's host copy has another address; a CPU tensor is its own host copy)."""
        for name, arg, host in zip(names, args, hosts, strict=False):
            if isinstance(arg, torch.Tensor) and isinstance(host, torch.Tensor):
                self.extents.append(extent_of(host, self.name_of(arg, name), arg))
            elif type(arg).__name__ == "TensorDescriptor" and type(host).__name__ == "TensorDescriptor":
                base, host_base = getattr(arg, "base", None), getattr(host, "base", None)
                if isinstance(base, torch.Tensor) and isinstance(host_base, torch.Tensor):
                    self.extents.append(extent_of(host_base, self.name_of(base, name), base))

    def note(self, access: Access, addresses: Any, program: GridIndex) -> None:
        """Out-of-bounds lanes of one access: grouped by the nearest tensor and the side."""
        import numpy as np

        if self.quiet:
            return
        for address in np.unique(addresses):
            address = int(address)
            below = [e for e in self.extents if e.start <= address]
            if below:
                extent, side = max(below, key=lambda e: e.start), Side.AFTER
            elif self.extents:
                extent, side = min(self.extents, key=lambda e: e.start), Side.BEFORE
            else:
                extent, side = Extent(0, 0, "?"), Side.AFTER
            key = (access, extent.name, program, side)
            if key in self.findings or len(self.findings) < MAX_FINDINGS:
                self.findings[key] = self.findings.get(key, 0) + 1

    def mark_written(self, addresses: Any, size: int) -> None:
        """Record the bytes a kernel stored to (addresses already checked to be in bounds)."""
        import numpy as np

        for extent in self.extents:
            inside = addresses[(addresses >= extent.start) & (addresses + size <= extent.end)]
            if not inside.size or extent.nbytes > MAX_TRACKED_BYTES:
                continue
            flags = self.written.get(extent.storage)
            if flags is None:
                flags = self.written[extent.storage] = np.zeros(extent.nbytes, dtype=bool)
            offsets = (inside - np.uint64(extent.host_base)).astype(np.int64)
            flags[offsets[(offsets >= 0) & (offsets < flags.size)]] = True

    def touched(self, t: torch.Tensor) -> bool:
        try:
            key = storage_key(t)
        except Exception:  # a tensor without storage (sparse, meta) holds nothing a kernel wrote
            return False
        return key in self.derived or key in self.written

    def coverage(self, t: torch.Tensor) -> torch.Tensor:
        """One flag per element of `t`: a kernel wrote it, or it was computed from what one wrote."""
        key = storage_key(t)
        if key in self.derived or t.numel() == 0:
            return torch.ones(t.shape, dtype=torch.bool)
        flags = self.written.get(key)
        if flags is None:
            return torch.zeros(t.shape, dtype=torch.bool)
        size = t.element_size()
        count = t.untyped_storage().nbytes() // size
        index = torch.as_strided(torch.arange(count), t.shape, t.stride(), t.storage_offset())
        offsets = (index * size).clamp(max=flags.size - 1).numpy()
        return torch.from_numpy(flags[offsets].copy())


ACTIVE: list[Watch] = []


def active() -> Watch | None:
    return ACTIVE[-1] if ACTIVE else None


_EMPTY = {torch.empty, torch.empty_like, torch.Tensor.new_empty, torch.empty_strided}
_FILLED = {
    torch.zeros,
    torch.zeros_like,
    torch.ones,
    torch.ones_like,
    torch.full,
    torch.full_like,
    torch.Tensor.new_zeros,
    torch.Tensor.new_ones,
    torch.Tensor.new_full,
}


class LauncherMode(TorchFunctionMode):
    """What the launcher does with torch between its kernels.

    Floating tensors it allocates get sentinel margins (and NaN if empty); a tensor it computes
    from memory a kernel wrote is marked as derived from the kernels (a partial-sum buffer
    reduced with `.sum(0)` is still the kernels' work; `torch.rsqrt(x)` on the input is not).
    """

    def __init__(self, watch: Watch) -> None:
        super().__init__()
        self.watch = watch

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        watch = self.watch
        if watch.in_kernel:
            return result
        if func in _EMPTY or func in _FILLED:
            if isinstance(result, torch.Tensor) and result.is_floating_point() and not result.requires_grad:
                return self._margined(result, filled=func in _FILLED)
            return result
        if any(isinstance(t, torch.Tensor) and watch.touched(t) for t in tree_leaves((args, kwargs))):
            for out in tree_leaves(result):
                if isinstance(out, torch.Tensor) and out.layout == torch.strided and out.device.type != "meta":
                    watch.derived.add(storage_key(out))
        return result

    def _margined(self, result: torch.Tensor, *, filled: bool) -> torch.Tensor:
        n = result.numel()
        base = torch.full((MARGIN + n + MARGIN,), SENTINEL, dtype=result.dtype, device=result.device)
        view = base[MARGIN : MARGIN + n].view(result.shape)
        view.copy_(result) if filled else view.fill_(math.nan)
        self.watch.allocated.append((base, view))
        return view
