"""The bounds guard on Triton's interpreter, and what it needs to run kernels as a GPU does.

Without CUDA the learner's `@triton.jit` kernels run under Triton's interpreter
(`TRITON_INTERPRET=1`), which executes each program in turn with numpy and does not check
bounds: a load or store goes to a raw host address. Every memory access of the interpreter
goes through four functions of its C module (`load`, `store`, `atomic_rmw`, `atomic_cas`):
tl.load and tl.store, every atomic (add, max, min, and, or, xor, xchg, cas), tensor
descriptors and gathers all end there. The guard replaces those four on the module itself
(the interpreter and any code that imports the module see the guarded ones) and, for every
active lane, checks the address against the extent of each tensor the kernel was given:

- an out-of-bounds lane is switched off (nothing is read or written there, so nothing crashes)
  and noted: the program, the lane count, the tensor, before or past it;
- every in-bounds store or atomic marks the bytes it wrote, so the runner can tell which
  outputs a kernel wrote (a launcher computing in plain torch is seen);
- a masked load without `other=` fills its masked-off lanes with NaN (on a GPU they are
  undefined; the interpreter would give 0 and hide the mistake).

Beside the guard, what real kernels use and the 3.9 interpreter gets wrong: a float scalar
argument becomes a float32 scalar tensor as on a GPU (so `eps.to(tl.float32)` and `eps.dtype`
work), libdevice calls compute (libdevice.py), bf16 arithmetic and sums are done in float32 and
rounded back. Block pointers were removed in Triton 3.9 itself, on a GPU too.

The guard uses the interpreter's private API, which changes between Triton releases: it was
written against TESTED_TRITON, checks itself on a known-bad kernel before the first launch,
and says plainly when it cannot run. Races and warp-level behaviour stay invisible: the
interpreter runs programs one after another.
"""

from __future__ import annotations

import linecache
from typing import Any

import torch

from normkata.grading.messages import TESTED_TRITON, Access, GuardState, GuardStatus, Side
from normkata.grading.worker.kernels import libdevice
from normkata.grading.worker.kernels.watch import ACTIVE, Extent, GridIndex, Watch, active

ACTIVE_STATUS = GuardStatus(GuardState.ACTIVE)
#: The interpreter's private names the guard replaces or calls (doctor checks they exist).
HOOKS = [
    ("InterpreterBuilder", "create_masked_load"),
    ("InterpreterBuilder", "create_extern_elementwise"),
    ("InterpreterBuilder", "binary_op"),
    ("ReduceOps", "sum"),
    ("GridExecutor", "_init_args_hst"),
    ("GridExecutor", "__call__"),
    ("InterpretedFunction", "__call__"),
    ("", "_implicit_cvt"),
    ("_interpreter", "load"),
    ("_interpreter", "store"),
    ("_interpreter", "atomic_rmw"),
    ("_interpreter", "atomic_cas"),
]


class _Guard:
    status = GuardStatus(GuardState.UNAVAILABLE, "cannot run: not installed")
    installed = False


def _in_bounds(addresses: Any, size: int, extents: list[Extent]) -> Any:
    import numpy as np

    ok = np.zeros(addresses.shape, dtype=bool)
    for e in extents:
        ok |= (addresses >= e.start) & (addresses + size <= e.end)
    return ok


def _program() -> GridIndex:
    from triton.runtime import interpreter

    idx = interpreter.interpreter_builder.grid_idx or (0, 0, 0)
    return (int(idx[0]), int(idx[1]), int(idx[2]))


def _checked(ptrs: Any, mask: Any, size: int, access: Access) -> tuple[Any, Any]:
    """(addresses, mask) with out-of-bounds lanes switched off and noted; writes recorded."""
    import numpy as np

    addresses = np.asarray(ptrs).astype(np.uint64)
    on = np.ones(addresses.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    on = np.broadcast_to(on, addresses.shape)
    watch = active()
    if watch is None:
        return addresses, on
    ok = _in_bounds(addresses, size, watch.extents)
    bad = on & ~ok
    if bad.any():
        watch.note(access, addresses[bad], _program())
        on = on & ok
    if access is not Access.READ:
        watch.mark_written(addresses[on], size)
    return addresses, on


def _guarded_memory(raw: Any) -> dict[str, Any]:
    """Guarded versions of the interpreter C module's four memory functions."""
    import numpy as np

    load, store, rmw, cas = raw.load, raw.store, raw.atomic_rmw, raw.atomic_cas

    def guarded_load(ptrs: Any, mask: Any, other: Any, dtype: Any) -> Any:
        _, on = _checked(ptrs, mask, np.dtype(dtype).itemsize, Access.READ)
        return load(ptrs, np.ascontiguousarray(on), other, dtype)

    def guarded_store(ptrs: Any, value: Any, mask: Any) -> Any:
        _, on = _checked(ptrs, mask, np.asarray(value).dtype.itemsize, Access.WRITE)
        return store(ptrs, value, np.ascontiguousarray(on))

    def guarded_rmw(op: Any, ptrs: Any, value: Any, mask: Any, sem: Any) -> Any:
        _, on = _checked(ptrs, mask, np.asarray(value).dtype.itemsize, Access.ATOMIC)
        return rmw(op, ptrs, value, np.ascontiguousarray(on), sem)

    def guarded_cas(ptrs: Any, cmp: Any, value: Any, sem: Any) -> Any:
        # No mask in the primitive: the lanes in bounds are swapped, the others read as `cmp`
        # would have been found (so a spin lock does not spin on memory that is not there).
        addresses, on = _checked(ptrs, None, np.asarray(value).dtype.itemsize, Access.ATOMIC)
        if on.all():
            return cas(ptrs, cmp, value, sem)
        cmp_b, value_b = np.broadcast_to(cmp, addresses.shape), np.broadcast_to(value, addresses.shape)
        result = np.array(cmp_b, copy=True)
        if on.any():
            result[on] = cas(
                np.ascontiguousarray(addresses[on]),
                np.ascontiguousarray(cmp_b[on]),
                np.ascontiguousarray(value_b[on]),
                sem,
            )
        return result

    return {"load": guarded_load, "store": guarded_store, "atomic_rmw": guarded_rmw, "atomic_cas": guarded_cas}


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
    missing = [
        f"{c}.{m}".lstrip(".") for c, m in HOOKS if not hasattr(getattr(interpreter, c, None) if c else interpreter, m)
    ]
    version = getattr(triton, "__version__", "?")
    tested = "" if version == TESTED_TRITON else f", the guard was tested with {TESTED_TRITON}"
    if missing:
        return f"triton {version}{tested}: the bounds guard cannot run (missing {', '.join(missing)})"
    return f"triton {version}{tested}: the bounds guard's hooks are present (it checks itself before each grade)"


def install() -> GuardStatus:
    """Wrap the interpreter once; the guard's status (active, or why not). Call only when
    the interpreter is in use (TRITON_INTERPRET set before the learner's kernels were made)."""
    if _Guard.installed:
        return _Guard.status
    _Guard.installed = True
    try:
        import triton

        patches = _patches()
    except Exception as exc:  # no triton, or its private API moved
        _Guard.status = GuardStatus(GuardState.UNAVAILABLE, f"cannot run: {type(exc).__name__}: {exc}"[:300])
        return _Guard.status
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, value in patches:
        setattr(owner, name, value)
    libdevice.patch_modules()
    try:
        problem = _self_check()
    except Exception as exc:
        problem = f"{type(exc).__name__}: {exc}"
    version = getattr(triton, "__version__", "?")
    if problem:
        for owner, name, value in saved:
            setattr(owner, name, value)
        reason = f"cannot run with triton {version} (tested with {TESTED_TRITON}): {problem}"[:300]
        _Guard.status = GuardStatus(GuardState.UNAVAILABLE, reason)
    else:
        _Guard.status = ACTIVE_STATUS
    return _Guard.status


def _patches() -> list[tuple[Any, str, Any]]:
    """(owner, attribute, replacement) for everything the guard changes in the interpreter."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    builder_cls = interpreter.InterpreterBuilder
    raw = interpreter._interpreter
    masked_load, binary = builder_cls.create_masked_load, builder_cls.binary_op
    reduce_sum_of = interpreter.ReduceOps.sum
    to_host, grid_call = interpreter.GridExecutor._init_args_hst, interpreter.GridExecutor.__call__
    device_call, implicit_cvt = interpreter.InterpretedFunction.__call__, interpreter._implicit_cvt

    def nan_filled_load(self: Any, ptrs: Any, mask: Any, other: Any, *rest: Any, **named: Any) -> Any:
        watch = active()
        if other is None and watch is not None:
            dtype = ptrs.get_element_ty()
            np_dtype = interpreter._get_np_dtype(dtype)
            if np.issubdtype(np_dtype, np.floating) or dtype.is_bf16():
                off = ~np.broadcast_to(np.asarray(mask.data, dtype=bool), np.shape(ptrs.data))
                if not watch.quiet:
                    watch.nan_filled += int(off.sum())  # lanes the kernel's own mask switched off
                if dtype.is_bf16():  # the interpreter keeps bf16 as the top half of float32 bits
                    nan = np.full(np.shape(ptrs.data), np.float32("nan"), dtype=np.float32)
                    fill = (nan.view(np.uint32) >> 16).astype(np_dtype)
                else:
                    fill = np.full(np.shape(ptrs.data), np.nan, dtype=np_dtype)
                other = interpreter.TensorHandle(fill, dtype)
        return masked_load(self, ptrs, mask, other, *rest, **named)

    def init_args_hst(self: Any, args_dev: Any, kwargs: Any) -> Any:
        args_hst, kwargs_hst = to_host(self, args_dev, kwargs)
        watch = active()
        if watch is not None:
            keys = list(kwargs)
            watch.add_kernel_args(
                list(self.arg_names) + keys,
                [*args_dev, *(kwargs[k] for k in keys)],
                [*args_hst, *(kwargs_hst[k] for k in keys)],
            )
        return args_hst, kwargs_hst

    def launch(self: Any, *args: Any, **kwargs: Any) -> Any:
        libdevice.patch_globals(self.fn.__globals__)
        with launching(getattr(self.fn, "__name__", "kernel")):
            return grid_call(self, *args, **kwargs)

    def call_device_function(self: Any, *args: Any, **kwargs: Any) -> Any:
        libdevice.patch_globals(self.fn.__globals__)
        return device_call(self, *args, **kwargs)

    def scalar_as_on_gpu(arg: Any) -> Any:
        # A GPU receives a Python float as a float32 scalar (Triton types it "fp32"): with a
        # dtype and .to(), as eps.to(tl.float32) in Liger's kernels expects.
        if isinstance(arg, float):
            return tl.tensor(interpreter.TensorHandle(np.array([arg], dtype=np.float32), tl.float32), tl.float32)
        return implicit_cvt(arg)

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

    memory = _guarded_memory(raw)
    return [
        (builder_cls, "create_masked_load", nan_filled_load),
        (builder_cls, "create_extern_elementwise", libdevice.create_extern_elementwise),
        (builder_cls, "binary_op", binary_op),
        (interpreter.ReduceOps, "sum", reduce_sum),
        (interpreter.GridExecutor, "_init_args_hst", init_args_hst),
        (interpreter.GridExecutor, "__call__", launch),
        (interpreter.InterpretedFunction, "__call__", call_device_function),
        (interpreter, "_implicit_cvt", scalar_as_on_gpu),
        *((raw, name, function) for name, function in memory.items()),
    ]


class launching:
    """While a kernel runs: its name is recorded once per launch (not while an autotune
    benchmark is replayed), and torch calls made meanwhile are the interpreter's, not the launcher's."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.watch: Watch | None = active()

    def __enter__(self) -> None:
        if self.watch is not None:
            if not self.watch.quiet:
                self.watch.launches.append(self.name)
            self.watch.in_kernel += 1

    def __exit__(self, *exc: object) -> None:
        if self.watch is not None:
            self.watch.in_kernel -= 1


def _bf16_to_f32(data: Any) -> Any:
    import numpy as np

    return (np.asarray(data).astype(np.uint32) << 16).view(np.float32)


def _f32_to_bf16(data: Any) -> Any:
    """Round to nearest even, as torch does, back to the interpreter's uint16 patterns."""
    import numpy as np

    array = np.asarray(data, dtype=np.float32)
    t = torch.from_numpy(np.ascontiguousarray(array)).to(torch.bfloat16)
    return t.view(torch.int16).numpy().view(np.uint16).reshape(array.shape)


_SELF_CHECK = """
import triton
import triton.language as tl


@triton.jit
def known_bad(x_ptr, y_ptr, lock_ptr, eps, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols)  # no mask: 4 lanes past the end of x
    half = tl.load(x_ptr + cols, mask=cols < 2)  # no other=: NaN in lanes 2..7
    tl.store(y_ptr + cols, x + half + eps.to(tl.float32))  # no mask: 4 lanes past the end of y
    tl.atomic_cas(lock_ptr + cols, 0, 1)  # 6 lanes past the end of lock (it has 2)
    tl.atomic_xchg(lock_ptr + cols, 0, mask=cols < 4)  # 2 lanes past the end of lock
"""


def _self_check() -> str:
    """Run a kernel that reads, writes and swaps past its tensors: the guard must see each, and NaN-fill."""
    filename = "<normkata kernel guard self-check>"
    # The interpreter reads a kernel's source through linecache: give it this one from memory.
    linecache.cache[filename] = (len(_SELF_CHECK), None, _SELF_CHECK.splitlines(True), filename)
    namespace: dict[str, Any] = {}
    exec(compile(_SELF_CHECK, filename, "exec"), namespace)
    x, y, lock = torch.arange(4, dtype=torch.float32), torch.zeros(4), torch.zeros(2, dtype=torch.int32)
    watch = Watch([(x, "x"), (y, "y"), (lock, "lock")])
    ACTIVE.append(watch)
    try:
        namespace["known_bad"][(1,)](x, y, lock, 0.0, BLOCK=8)
    finally:
        ACTIVE.pop()
    found = {(k[0], k[1], k[3]): n for k, n in watch.findings.items()}
    expected = {
        (Access.READ, "x", Side.AFTER): 4,
        (Access.WRITE, "y", Side.AFTER): 4,
        (Access.ATOMIC, "lock", Side.AFTER): 8,
    }
    if found != expected:
        return f"the known-bad kernel was not caught as expected (found {found})"
    if watch.nan_filled != 6 or not bool(torch.isnan(y[2:]).all()):
        return "masked-off lanes without other= were not filled with NaN"
    if watch.launches != ["known_bad"] or not bool(watch.coverage(y).all()):
        return "the kernel's launch and the memory it wrote were not recorded"
    return ""
