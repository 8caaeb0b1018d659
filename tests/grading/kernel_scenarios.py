"""Learner launchers for tests/grading/test_kernels.py, run in a fresh interpreter by
`run_scenarios` (the guard patches Triton process-wide, and TRITON_INTERPRET must be set before
a kernel is made). Each launcher is one mechanism; the test reads what the worker would reply."""

# ruff: noqa: E731
from __future__ import annotations

import json
import sys

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

from normkata.grading.messages import Launch, Program, ProgramKind, Step
from normkata.grading.worker import kernels
from normkata.grading.worker.stage import Stage


@triton.jit
def double_unmasked_store(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols, mask=cols < n)  # no other=: NaN in lanes n..BLOCK-1
    tl.store(y_ptr + row * n + cols, tl.where(cols < n, x, 0.0) * 2)  # the store forgot the mask


def unmasked_store(x):
    y = torch.empty_like(x)
    double_unmasked_store[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return y, torch.empty(3)


@triton.jit
def every_primitive(x_ptr, lock_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)  # BLOCK > n: every access below has lanes past its tensor
    tl.atomic_cas(x_ptr + cols, -1.0, -1.0)
    tl.atomic_xchg(lock_ptr + cols, 0)
    tl.atomic_add(lock_ptr + cols, 1)
    tl.atomic_max(lock_ptr + cols, 1)
    desc = tl.make_tensor_descriptor(x_ptr, shape=[BLOCK], strides=[1], block_shape=[BLOCK])  # lies about x's size
    tl.store(x_ptr + cols, desc.load([0]) * 1.0, mask=cols < n)


def primitives(x):
    lock = torch.zeros(4, dtype=torch.int32)
    every_primitive[(1,)](x, lock, x.shape[0], BLOCK=16)
    return (x.clone(),)


def raw_interpreter_read(x):
    """The interpreter's C module called by hand after a launch: the same guarded function."""
    import numpy as np
    from triton._C.libtriton import interpreter as raw

    y = torch.empty_like(x)
    copy_rows[(1,)](x, y, x.numel(), BLOCK=triton.next_power_of_2(x.numel()))
    past_x = np.array([x.data_ptr() + 4 * (x.numel() + 3)], dtype=np.uint64)
    raw.load(past_x, np.array([True]), np.zeros(1, np.float32), np.dtype(np.float32))
    return (y,)


@triton.jit
def copy_rows(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    tl.store(y_ptr + row * n + cols, tl.load(x_ptr + row * n + cols, mask=cols < n), mask=cols < n)


def plain_torch(x):
    return (x * 2, torch.ones(x.shape[0]))


def partial_sums(x):
    partial = torch.empty_like(x)
    copy_rows[(x.shape[0],)](x, partial, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return partial.sum(0), torch.rsqrt(x.pow(2).mean(-1))  # the second never touched a kernel's output


def misses_a_row(x):
    y = torch.zeros_like(x)
    copy_rows[(x.shape[0] - 1,)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return (y,)


def writes_margin_in_torch(x):
    y = torch.empty_like(x)
    copy_rows[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    torch.as_strided(y, (2,), (1,), y.storage_offset() + y.numel()).fill_(0.0)  # two values past y
    return (y,)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 4}, num_warps=2),
        triton.Config({"BLOCK": 4}, num_warps=8),
        triton.Config({"BLOCK": 8}),
        triton.Config({"BLOCK": 64}),
    ],
    key=["n"],
    reset_to_zero=["acc_ptr"],
)
@triton.jit
def tuned_sum(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        tl.atomic_add(
            acc_ptr + cols * 0 + row, tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0), mask=cols < n
        )


def autotuned(x):
    acc = torch.zeros(x.shape[0])
    tuned_sum[(x.shape[0],)](x, acc, x.shape[1])
    return (acc,)


@triton.autotune(configs=[triton.Config({"BLOCK": 4}), triton.Config({"BLOCK": 8})], key=["n"])
@triton.jit
def tuned_sum_no_reset(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        tl.atomic_add(
            acc_ptr + cols * 0 + row, tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0), mask=cols < n
        )


def autotuned_without_reset(x):
    acc = torch.zeros(x.shape[0])
    tuned_sum_no_reset[(x.shape[0],)](x, acc, x.shape[1])
    return (acc,)


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}) for b in (2, 4, 8, 16)],
    key=["n"],
    prune_configs_by={"early_config_prune": lambda configs, nargs, **kw: configs[1:3]},
)
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def pruned_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        if EVEN:
            tl.store(y_ptr + row * n + cols, tl.load(x_ptr + row * n + cols))
        else:
            tl.store(y_ptr + row * n + cols, tl.load(x_ptr + row * n + cols, mask=cols < n), mask=cols < n)


def pruned_heuristics(x):
    y = torch.empty_like(x)
    pruned_copy[(x.shape[0],)](x, y, x.shape[1])
    return (y,)


@triton.jit
def math_kernel(x_ptr, out_ptr, eps, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols)
    e = eps.to(tl.float32)
    tl.store(out_ptr + 0 * BLOCK + cols, libdevice.rsqrt(x + e))
    tl.store(out_ptr + 1 * BLOCK + cols, libdevice.tanh(x))
    tl.store(out_ptr + 2 * BLOCK + cols, libdevice.pow(x, 1.5))
    tl.store(out_ptr + 3 * BLOCK + cols, libdevice.fast_expf(x))
    tl.store(out_ptr + 4 * BLOCK + cols, libdevice.div_rn(x, 3.0))
    tl.store(out_ptr + 5 * BLOCK + cols, libdevice.isnan(x / 0.0 * 0.0).to(tl.float32))
    tl.store(out_ptr + 6 * BLOCK + cols, tl.zeros([BLOCK], dtype=eps.dtype) + e)


def libdevice_math(x):
    out = torch.empty(7 * x.numel())
    math_kernel[(1,)](x, out, 1e-3, BLOCK=x.numel())
    return (out,)


@triton.jit
def bessel_kernel(x_ptr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    tl.store(x_ptr + cols, libdevice.cyl_bessel_i0(tl.load(x_ptr + cols)))


def unsupported_libdevice(x):
    bessel_kernel[(1,)](x, BLOCK=x.numel())
    return (x,)


@triton.jit
def block_pointer_kernel(x_ptr, n, BLOCK: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, shape=(n,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,))
    tl.store(p, tl.load(p))


def block_pointers(x):
    block_pointer_kernel[(1,)](x, x.numel(), BLOCK=x.numel())
    return (x,)


def asks_torch_cuda(x):
    sm_count = torch.cuda.get_device_properties(x.device).multi_processor_count
    y = torch.empty_like(x)
    copy_rows[(sm_count,)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return (y,)


def asks_triton_driver(x):
    props = triton.runtime.driver.active.utils.get_device_properties(0)  # FLA's way to count SMs
    y = torch.empty_like(x)
    copy_rows[(props["multiprocessor_count"],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return (y,)


def returns_none(x):
    y = torch.empty_like(x)
    copy_rows[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return y, None


SCENARIOS = {
    name: value
    for name, value in dict(globals()).items()
    if callable(value)
    and not name.startswith("_")
    and not isinstance(value, triton.runtime.KernelInterface)
    and getattr(value, "__module__", "") == __name__
    and name not in ("run", "describe")
}


def describe(reply: object) -> dict:
    found = [[f.access.value, f.tensor, f.program_text, f.lanes, f.side.value] for f in reply.out_of_bounds]
    return {
        "config": reply.config,
        "launches": reply.launches,
        "out_of_bounds": found,
        "nan_filled": reply.nan_filled,
        "guard": reply.guard.state.value,
        "written": [None if w is None else w.tolist() for w in reply.written],
        "margins": [[m.tensor, m.before.tolist(), m.after.tolist()] for m in reply.margins],
        "outputs": [o.tolist() for o in reply.outputs],
    }


def run(name: str) -> dict:
    x = torch.arange(15, dtype=torch.float32).reshape(3, 5) / 4
    if name in ("primitives", "libdevice_math", "unsupported_libdevice", "block_pointers", "raw_interpreter_read"):
        x = torch.arange(1, 9, dtype=torch.float32) / 4
    program = Program(
        name, [], {}, steps=[Step([x])], kind=ProgramKind.LAUNCHER, launch=Launch(("x",), ("y", "second"))
    )
    stage = Stage("forward")
    try:
        reply = kernels.run_program(SCENARIOS[name], program, stage)
    except Exception as exc:
        return {"raised": type(exc).__name__, "message": str(exc), "stage": stage.name}
    return {"steps": [describe(step) for step in reply.steps], "x": x.tolist()}


if __name__ == "__main__":
    kernels.prepare_environment(sys.argv[1])
    status = kernels.install_guard()
    print(json.dumps({"status": status.state.value, **{name: run(name) for name in sys.argv[2:]}}))
