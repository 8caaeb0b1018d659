"""Kernel katas in the worker: run a learner's Triton launcher and watch every memory access.

Runs in the untrusted worker, next to the learner's code (as calls.py does). On a machine
without CUDA the learner's `@triton.jit` kernels run under Triton's interpreter
(`TRITON_INTERPRET=1`, set by `prepare_environment` before the learner's file is imported),
which executes each program in turn with numpy and does not check bounds: a load or store goes
to a raw host address. The guard below wraps the interpreter's masked load and store (and its
atomics) and, for every active lane, checks the address against the extent of each tensor the
kernel was given:

- an out-of-bounds lane is switched off (nothing is read or written there, so nothing crashes)
  and reported as a finding: the program, the lane count, the tensor, before or past it;
- a masked load without `other=` fills its masked-off lanes with NaN (on a GPU they are
  undefined; the interpreter would give 0 and hide the mistake).

Tensors the launcher allocates (`torch.empty`, `empty_like`, `zeros`, ...) are carved out of a
larger buffer whose margins hold a sentinel value, and `empty` is filled with NaN, so a write
outside an output shows even where the guard cannot run, and rows no program wrote show as NaN.

The guard uses the interpreter's private API (`InterpreterBuilder.create_masked_load`, ...),
which changes between Triton releases: it was written against TESTED_TRITON, checks itself on
a known-bad kernel before the first launch, and says plainly when it cannot run. Races and
warp-level behaviour stay invisible: the interpreter runs programs one after another.

The findings cross the pipe as text (`StepReply.findings`), `kind|tensor|program|lanes|where`;
the runner words them for the learner. Like every check in the worker, a submission written
to hide from it can; it cannot make wrong numbers right, and the sentinels are read outside.
"""

from __future__ import annotations

import contextlib
import linecache
import math
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from normkata.grading.contract import RunReply, StepReply

#: The Triton release the guard was written and tested against (pinned by the `triton` extra).
TESTED_TRITON = "3.9.0"
#: Elements of sentinel margin before and after every tensor the launcher allocates.
MARGIN = 64
#: Exactly representable in float32, float16 and bfloat16; no correct kernel writes it by chance.
SENTINEL = -16384.0
#: Findings kept per launch (a kernel without masks finds one per program).
MAX_FINDINGS = 40

STATUS_ACTIVE = "active"


def compiles_on_gpu() -> bool:
    """Kernels run compiled only on a GPU with the sandbox off (NORMKATA_SANDBOX=off).

    Compiling a Triton kernel runs ptxas (and ldconfig) as child processes, and the confined
    worker may start none (seccomp forbids exec): under the sandbox the interpreter runs the
    kernels, on CUDA tensors too (it copies them to the host and back).
    """
    return os.environ.get("NORMKATA_SANDBOX") == "off" and torch.cuda.is_available()


def prepare_environment(scratch: str) -> None:
    """Before confinement and before the learner's file is imported (`@triton.jit` reads it then):
    the interpreter unless compiles_on_gpu(), and Triton's cache in the scratch folder."""
    if "TRITON_INTERPRET" not in os.environ and not compiles_on_gpu():
        os.environ["TRITON_INTERPRET"] = "1"
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(scratch, "triton-cache"))
    os.environ.setdefault("TRITON_HOME", scratch)


def interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "") not in ("", "0")


# -- extents -----------------------------------------------------------------------------------


@dataclass
class _Extent:
    start: int  # first byte
    end: int  # one past the last byte
    name: str


def _extent(t: torch.Tensor, name: str) -> _Extent:
    """The bytes a tensor's elements span (gaps of a strided view included)."""
    if t.numel() == 0:
        return _Extent(t.data_ptr(), t.data_ptr(), name)
    low = sum((s - 1) * st for s, st in zip(t.shape, t.stride(), strict=True) if st < 0)
    high = sum((s - 1) * st for s, st in zip(t.shape, t.stride(), strict=True) if st > 0)
    size = t.element_size()
    return _Extent(t.data_ptr() + low * size, t.data_ptr() + (high + 1) * size, name)


@dataclass
class _Watch:
    """One launcher call: the tensors it was given and made, and what the guard found."""

    named: list[tuple[torch.Tensor, str]]  # the grader's inputs
    allocated: list[tuple[torch.Tensor, torch.Tensor]] = field(default_factory=list)  # (margined base, view)
    extents: list[_Extent] = field(default_factory=list)
    findings: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    nan_filled: int = 0

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
                self.extents.append(_extent(host, self.name_of(arg, name)))

    def note(self, kind: str, addresses: Any, program: str) -> None:
        """Out-of-bounds lanes of one access: grouped by the nearest tensor and the side."""
        import numpy as np

        for address in np.unique(addresses):
            address = int(address)
            below = [e for e in self.extents if e.start <= address]
            if below:
                extent, where = max(below, key=lambda e: e.start), "after"
            elif self.extents:
                extent, where = min(self.extents, key=lambda e: e.start), "before"
            else:
                extent, where = _Extent(0, 0, "?"), "after"
            key = (kind, extent.name, program, where)
            if key in self.findings or len(self.findings) < MAX_FINDINGS:
                self.findings[key] = self.findings.get(key, 0) + 1


_ACTIVE: list[_Watch] = []


# -- the guard on the interpreter --------------------------------------------------------------


class _Guard:
    status = "not installed"
    installed = False


def _in_bounds(addresses: Any, size: int, extents: list[_Extent]) -> Any:
    import numpy as np

    ok = np.zeros(addresses.shape, dtype=bool)
    for e in extents:
        ok |= (addresses >= e.start) & (addresses + size <= e.end)
    return ok


def _program() -> str:
    from triton.runtime import interpreter

    idx = interpreter.interpreter_builder.grid_idx or (0, 0, 0)
    return str(idx[0]) if idx[1:] == (0, 0) else f"({idx[0]}, {idx[1]}, {idx[2]})"


def _checked(ptrs: Any, mask: Any, kind: str) -> Any:
    """The mask with out-of-bounds lanes switched off (noted); None when nothing is watched."""
    import numpy as np
    from triton.runtime import interpreter

    if not _ACTIVE:
        return mask
    watch = _ACTIVE[-1]
    addresses = np.asarray(ptrs.data).astype(np.uint64)
    active = np.broadcast_to(np.asarray(mask.data, dtype=bool), addresses.shape)
    size = int(ptrs.get_element_ty().primitive_bitwidth) // 8
    ok = _in_bounds(addresses, size, watch.extents)
    bad = active & ~ok
    if bad.any():
        watch.note(kind, addresses[bad], _program())
        return interpreter.TensorHandle(active & ok, mask.dtype)
    return mask


def describe() -> str:
    """For `normkata doctor`: Triton's version, and whether the hooks the guard wraps exist.

    Imports triton (no kernel is made, nothing is patched); says plainly what is missing.
    """
    import importlib.util

    if importlib.util.find_spec("triton") is None:
        return 'triton: not installed (kernel katas need pip install "normkata[triton]")'
    try:
        import triton
        from triton.runtime import interpreter
    except Exception as exc:
        return f"triton: cannot be imported ({type(exc).__name__}: {exc})"[:300]
    hooks = [("InterpreterBuilder", "create_masked_load"), ("InterpreterBuilder", "create_masked_store"),
             ("InterpreterBuilder", "create_atomic_rmw"), ("InterpreterBuilder", "binary_op"),
             ("ReduceOps", "sum"), ("GridExecutor", "_init_args_hst")]  # fmt: skip
    missing = [f"{c}.{m}" for c, m in hooks if not hasattr(getattr(interpreter, c, None), m)]
    version = getattr(triton, "__version__", "?")
    tested = "" if version == TESTED_TRITON else f", the guard was tested with {TESTED_TRITON}"
    if missing:
        return f"triton {version}{tested}: the bounds guard cannot run (missing {', '.join(missing)})"
    return f"triton {version}{tested}: the bounds guard's hooks are present (it checks itself before each grade)"


def install_guard() -> str:
    """Wrap the interpreter's memory operations once; the guard's status ("active" or why not)."""
    if _Guard.installed:
        return _Guard.status
    _Guard.installed = True
    if not interpreting():
        _Guard.status = "off: kernels are compiled for the GPU (the interpreter is not in use)"
        return _Guard.status
    try:
        import numpy as np
        import triton
        from triton.runtime import interpreter

        builder_cls = interpreter.InterpreterBuilder
        load, store = builder_cls.create_masked_load, builder_cls.create_masked_store
        rmw, binary = builder_cls.create_atomic_rmw, builder_cls.binary_op
        reduce_sum_of = interpreter.ReduceOps.sum
        import triton.language as tl
        to_host = interpreter.GridExecutor._init_args_hst
    except Exception as exc:  # no triton, or its private API moved
        _Guard.status = f"cannot run: {type(exc).__name__}: {exc}"[:300]
        return _Guard.status

    def masked_load(self: Any, ptrs: Any, mask: Any, other: Any, *rest: Any) -> Any:
        if other is None and _ACTIVE:
            dtype = ptrs.get_element_ty()
            np_dtype = interpreter._get_np_dtype(dtype)
            if np.issubdtype(np_dtype, np.floating) or dtype.is_bf16():
                off = ~np.broadcast_to(np.asarray(mask.data, dtype=bool), np.shape(ptrs.data))
                _ACTIVE[-1].nan_filled += int(off.sum())  # lanes the kernel's own mask switched off
                if dtype.is_bf16():  # the interpreter keeps bf16 as the top half of float32 bits
                    nan = np.full(np.shape(ptrs.data), np.float32("nan"), dtype=np.float32)
                    fill = (nan.view(np.uint32) >> 16).astype(np_dtype)
                else:
                    fill = np.full(np.shape(ptrs.data), np.nan, dtype=np_dtype)
                other = interpreter.TensorHandle(fill, dtype)
        return load(self, ptrs, _checked(ptrs, mask, "read"), other, *rest)

    def masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any) -> Any:
        return store(self, ptrs, value, _checked(ptrs, mask, "write"), *rest)

    def atomic_rmw(self: Any, op: Any, ptr: Any, val: Any, mask: Any, *rest: Any) -> Any:
        return rmw(self, op, ptr, val, _checked(ptr, mask, "atomic"), *rest)

    def init_args_hst(self: Any, args_dev: Any, kwargs: Any) -> Any:
        args_hst, kwargs_hst = to_host(self, args_dev, kwargs)
        if _ACTIVE:
            names = list(self.arg_names)
            keys = list(kwargs)
            _ACTIVE[-1].add_kernel_args(names + keys, [*args_dev, *(kwargs[k] for k in keys)],
                                        [*args_hst, *(kwargs_hst[k] for k in keys)])  # fmt: skip
        return args_hst, kwargs_hst

    def binary_op(self: Any, lhs: Any, rhs: Any, op: Any) -> Any:
        if lhs.dtype.scalar != tl.bfloat16 or np.asarray(lhs.data).dtype == np.bool_:
            return binary(self, lhs, rhs, op)
        # The interpreter keeps bf16 as uint16 bit patterns and applies numpy's op to those
        # integers (1.5 * 2.0 is garbage). A GPU computes in bf16: do it in float32, round back.
        output = op(_bf16_to_f32(lhs.data), _bf16_to_f32(rhs.data))
        if output.dtype == np.bool_:
            return interpreter.TensorHandle(output, tl.int1)
        return interpreter.TensorHandle(_f32_to_bf16(output), lhs.dtype.scalar)

    def reduce_sum(self: Any, input: Any) -> Any:
        if input.dtype.scalar != tl.bfloat16:
            return reduce_sum_of(self, input)
        total = np.sum(_bf16_to_f32(input.handle.data), axis=self.axis, keepdims=self.keep_dims)
        rounded = _f32_to_bf16(np.asarray(total))
        return self.to_tensor(rounded[()] if rounded.ndim == 0 else rounded, input.dtype)

    builder_cls.binary_op = binary_op
    interpreter.ReduceOps.sum = reduce_sum
    builder_cls.create_masked_load = masked_load
    builder_cls.create_masked_store = masked_store
    builder_cls.create_atomic_rmw = atomic_rmw
    interpreter.GridExecutor._init_args_hst = init_args_hst
    try:
        problem = _self_check()
    except Exception as exc:
        problem = f"{type(exc).__name__}: {exc}"
    version = getattr(triton, "__version__", "?")
    if problem:
        builder_cls.create_masked_load, builder_cls.create_masked_store = load, store
        builder_cls.create_atomic_rmw, interpreter.GridExecutor._init_args_hst = rmw, to_host
        builder_cls.binary_op, interpreter.ReduceOps.sum = binary, reduce_sum_of
        _Guard.status = f"cannot run with triton {version} (tested with {TESTED_TRITON}): {problem}"[:300]
    else:
        _Guard.status = STATUS_ACTIVE
    return _Guard.status


def _bf16_to_f32(data: Any) -> Any:
    import numpy as np

    return (np.asarray(data).astype(np.uint32) << 16).view(np.float32)


def _f32_to_bf16(data: Any) -> Any:
    """Round to nearest even, as torch does, back to the interpreter's uint16 patterns."""
    import numpy as np

    array = np.asarray(data, dtype=np.float32)
    t = torch.from_numpy(np.ascontiguousarray(array)).to(torch.bfloat16)
    return t.view(torch.int16).numpy().view(np.uint16).reshape(array.shape)


_SELF_CHECK = '''
import triton
import triton.language as tl


@triton.jit
def known_bad(x_ptr, y_ptr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols)  # no mask: 4 lanes past the end of x
    half = tl.load(x_ptr + cols, mask=cols < 2)  # no other=: NaN in lanes 2..7
    tl.store(y_ptr + cols, x + half)  # no mask: 4 lanes past the end of y
'''


def _self_check() -> str:
    """Run a kernel that reads and writes past its tensors: the guard must see both, and NaN-fill."""
    filename = "<normkata kernel guard self-check>"
    # The interpreter reads a kernel's source through linecache: give it this one from memory.
    linecache.cache[filename] = (len(_SELF_CHECK), None, _SELF_CHECK.splitlines(True), filename)
    namespace: dict[str, Any] = {}
    exec(compile(_SELF_CHECK, filename, "exec"), namespace)
    x, y = torch.arange(4, dtype=torch.float32), torch.zeros(4)
    watch = _Watch([(x, "x"), (y, "y")])
    _ACTIVE.append(watch)
    try:
        namespace["known_bad"][(1,)](x, y, BLOCK=8)
    finally:
        _ACTIVE.pop()
    found = {(k[0], k[1], k[3]): n for k, n in watch.findings.items()}
    if found != {("read", "x", "after"): 4, ("write", "y", "after"): 4}:
        return f"the known-bad kernel was not caught as expected (found {found})"
    if watch.nan_filled != 6 or not bool(torch.isnan(y[2:]).all()):
        return "masked-off lanes without other= were not filled with NaN"
    return ""


# -- allocations with sentinel margins ---------------------------------------------------------

_EMPTY = {torch.empty, torch.empty_like, torch.Tensor.new_empty, torch.empty_strided}
_FILLED = {torch.zeros, torch.zeros_like, torch.ones, torch.ones_like, torch.full, torch.full_like,
           torch.Tensor.new_zeros, torch.Tensor.new_ones, torch.Tensor.new_full}  # fmt: skip


class _Margins(TorchFunctionMode):
    """Floating tensors made during the launcher call get sentinel margins (and NaN if empty)."""

    def __init__(self, watch: _Watch) -> None:
        super().__init__()
        self.watch = watch

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        result = func(*args, **(kwargs or {}))
        if (func in _EMPTY or func in _FILLED) and isinstance(result, torch.Tensor) \
                and result.is_floating_point() and not result.requires_grad:  # fmt: skip
            n = result.numel()
            base = torch.full((MARGIN + n + MARGIN,), SENTINEL, dtype=result.dtype, device=result.device)
            view = base[MARGIN : MARGIN + n].view(result.shape)
            view.copy_(result) if func in _FILLED else view.fill_(math.nan)
            self.watch.allocated.append((base, view))
            return view
        return result


def _margins_intact(base: torch.Tensor) -> tuple[int, int]:
    """Sentinels changed before and after the tensor."""
    before, after = base[:MARGIN], base[-MARGIN:]
    return int((before != SENTINEL).sum()), int((after != SENTINEL).sum())


# -- running a launcher ------------------------------------------------------------------------


@contextlib.contextmanager
def _watching(watch: _Watch) -> Iterator[None]:
    _ACTIVE.append(watch)
    try:
        with _Margins(watch):
            yield
    finally:
        _ACTIVE.remove(watch)


def run_launcher(fn: Any, inputs: list[torch.Tensor], extra: list[Any], names: list[str],
                 output_names: list[str]) -> tuple[Any, list[str]]:  # fmt: skip
    """Call `fn(*inputs, *extra)`; its result and the findings (`kind|tensor|program|lanes|where`)."""
    status = install_guard() if "triton" in sys.modules else "cannot run: triton is not imported"
    findings = [] if status == STATUS_ACTIVE else [f"guard|{status}|||"]
    watch = _Watch(list(zip(inputs, names, strict=False)))
    with _watching(watch):
        try:
            result = fn(*inputs, *extra)
        except Exception as exc:
            cause = exc.__cause__
            if type(exc).__name__ == "InterpreterError" and isinstance(cause, Exception):
                raise cause from None  # its traceback reaches the learner's kernel line
            raise
    returned = list(result) if isinstance(result, (tuple, list)) else [result]
    rename = {}
    for index, (base, view) in enumerate(watch.allocated):
        name = "a tensor your launcher allocated"
        for position, out in enumerate(returned):
            if isinstance(out, torch.Tensor) and out.data_ptr() == view.data_ptr():
                name = output_names[position] if position < len(output_names) else f"output {position}"
        rename[f"@{index}"] = name
        before, after = _margins_intact(base)
        if before:
            findings.append(f"margin|{name}||{before}|before")
        if after:
            findings.append(f"margin|{name}||{after}|after")
    for (kind, name, program, where), lanes in watch.findings.items():
        findings.append(f"{kind}|{rename.get(name, name)}|{program}|{lanes}|{where}")
    if watch.nan_filled:
        findings.append(f"nan-fill|||{watch.nan_filled}|")
    return result, findings


def run_program(fn: Any, program: Any) -> RunReply:
    """A Program of kind "launcher": each step calls the launcher; outputs, findings, no grads."""
    names = [str(n) for n in program.args]
    output_names = [str(n) for n in program.kwargs.get("outputs", [])]
    replies = []
    for step in program.steps:
        inputs = [t if t.device.type == program.device else _moved(t, program.device) for t in step.inputs]
        result, findings = run_launcher(fn, inputs, list(step.extra), names, output_names)
        outputs = [] if result is None else list(result) if isinstance(result, (tuple, list)) else [result]
        if not all(isinstance(t, torch.Tensor) for t in outputs):
            raise TypeError(f"{program.cls} returned {type(result).__name__}: expected a tuple of tensors")
        if program.kwargs.get("time") and inputs and inputs[0].is_cuda:
            findings.append(_timings(fn, inputs, list(step.extra)))
        replies.append(StepReply(outputs=[t.detach().as_subclass(torch.Tensor).to("cpu").clone() for t in outputs],
                                 findings=findings))
    return RunReply(True, replies)


def _moved(t: torch.Tensor, device: str) -> torch.Tensor:
    """A strided input keeps its layout on the device: its whole storage moves, gaps and all."""
    base = torch.empty(0, dtype=t.dtype, device=device)
    storage = t.untyped_storage()
    flat = torch.empty(0, dtype=t.dtype).set_(storage, 0, (storage.nbytes() // t.element_size(),), (1,))
    moved = flat.to(device)
    return base.set_(moved.untyped_storage(), t.storage_offset(), t.shape, t.stride())


#: The speed case's shape: 256 MB per fp16 tensor, well past a GPU's L2 cache (50 MB on an
#: H100, where a 32 MB copy measured 1.7x faster per byte than a 256 MB one: docs/gpu.md).
TIMED_SHAPE = (16384, 8192)


def _timings(fn: Any, inputs: list[torch.Tensor], extra: list[Any], repeats: int = 30) -> str:
    """`time|launcher ms|copy ms|eager ms|` on a TIMED_SHAPE input of x's dtype made on the GPU.

    Medians of CUDA-event timings after a warm-up. The copy reads x and writes a tensor of x's
    size: the bytes a fused norm must move at least. Measured in the worker, so a submission
    could fake it: it is reported, never scored.
    """
    dtype, device = inputs[0].dtype, inputs[0].device
    generator = torch.Generator(device=device).manual_seed(0)
    x = torch.randn(TIMED_SHAPE, generator=generator, device=device, dtype=torch.float32).to(dtype)
    w = torch.ones(TIMED_SHAPE[1], dtype=dtype, device=device)
    eps = float(extra[0]) if extra else 1e-5
    out = torch.empty_like(x)

    def eager() -> Any:
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(dtype)

    def median_ms(call: Any) -> float:
        for _ in range(3):
            call()
        torch.cuda.synchronize()
        times = []
        for _ in range(repeats):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        return sorted(times)[len(times) // 2]

    kernel = median_ms(lambda: fn(x, w, *extra))
    copy = median_ms(lambda: out.copy_(x))
    return f"time|{kernel:.6f}|{copy:.6f}|{median_ms(eager):.6f}|"
