"""Running a kernel kata's launcher in the worker: once per autotune config, watched, and the
facts sent back (outputs, the guard's findings, which kernels ran, which output elements a
kernel wrote, the margins of what the launcher allocated). The runner judges them."""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Iterator
from types import TracebackType
from typing import Any

import torch

from normkata.grading.messages import (
    TIMED_SHAPE,
    GuardState,
    GuardStatus,
    KernelMargin,
    LauncherTiming,
    OutOfBounds,
    Program,
    RunReply,
    StepReply,
    compiles_on_gpu,
)
from normkata.grading.worker.kernels import guard, tuning
from normkata.grading.worker.kernels.errors import TritonUnsupported
from normkata.grading.worker.kernels.watch import ACTIVE, MARGIN, MAX_ALLOCATIONS, LauncherMode, Watch
from normkata.grading.worker.stage import Stage


def prepare_environment(scratch: str) -> None:
    """Before confinement and before the learner's file is imported (`@triton.jit` reads it then):
    the interpreter unless compiles_on_gpu(), and Triton's cache in the scratch folder."""
    if "TRITON_INTERPRET" not in os.environ and not compiles_on_gpu():
        os.environ["TRITON_INTERPRET"] = "1"
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(scratch, "triton-cache"))
    os.environ.setdefault("TRITON_HOME", scratch)


def interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "") not in ("", "0")


def install_guard() -> GuardStatus:
    """Make Triton ready for the launcher: every autotune config graded, and under the
    interpreter the bounds guard; its status (active, or why not)."""
    if "triton" not in sys.modules:
        return GuardStatus(GuardState.UNAVAILABLE, "cannot run: triton is not imported")
    try:
        tuning.install()
    except Exception as exc:  # its private API moved: autotuned kernels then run as Triton runs them
        return GuardStatus(GuardState.UNAVAILABLE, f"cannot run: {type(exc).__name__}: {exc}"[:300])
    if not interpreting():
        _record_compiled_launches()
        return GuardStatus(GuardState.OFF, "off: kernels are compiled for the GPU (the interpreter is not in use)")
    return guard.install()


def _record_compiled_launches() -> None:
    """Compiled kernels cannot be watched lane by lane, but their launches can be seen."""
    from triton.runtime.jit import JITFunction

    if getattr(JITFunction.run, "_normkata", False):
        return
    original = JITFunction.run

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("warmup"):
            return original(self, *args, **kwargs)
        with guard.launching(getattr(self, "__name__", "kernel")):
            return original(self, *args, **kwargs)

    run._normkata = True  # type: ignore[attr-defined]
    JITFunction.run = run


@contextlib.contextmanager
def _watching(watch: Watch) -> Iterator[None]:
    ACTIVE.append(watch)
    try:
        with LauncherMode(watch):
            yield
    finally:
        ACTIVE.remove(watch)


def run_launcher(
    fn: Any,
    inputs: list[torch.Tensor],
    extra: list[Any],
    names: tuple[str, ...],
    output_names: tuple[str, ...],
    stage: Stage | None = None,
) -> tuple[Any, GuardStatus, list[OutOfBounds], Watch]:
    """Call `fn(*inputs, *extra)`: its result, the guard's status, the lanes it switched off (each
    named after the input or output it ran past) and the watch (launches, writes, allocations)."""
    status = install_guard()
    watch = Watch(list(zip(inputs, names, strict=False)))
    with _watching(watch):
        try:
            result = fn(*inputs, *extra)
        except Exception as exc:
            raise _explained(exc, inputs, stage) from None
    rename = _allocation_names(watch, result, output_names)
    found = [
        OutOfBounds(access, rename.get(name, name), program, lanes, side)
        for (access, name, program, side), lanes in watch.findings.items()
    ]
    return result, status, found, watch


def _allocation_names(watch: Watch, result: Any, output_names: tuple[str, ...]) -> dict[str, str]:
    returned = list(result) if isinstance(result, (tuple, list)) else [result]
    rename = {}
    for index, (_base, view) in enumerate(watch.allocated):
        name = "a tensor your launcher allocated"
        for position, out in enumerate(returned):
            if isinstance(out, torch.Tensor) and out.data_ptr() == view.data_ptr():
                name = output_names[position] if position < len(output_names) else f"output {position + 1}"
        rename[f"@{index}"] = name
    return rename


def _explained(exc: Exception, inputs: list[torch.Tensor], stage: Stage | None) -> BaseException:
    """Where the launcher's exception was raised, and a plain line where Triton is to blame.

    The stage is "kernel" for an exception inside a `@triton.jit` kernel (its traceback then
    reaches the kernel's line), "launcher" for one in the launcher's own Python. A
    NotImplementedError from inside Triton (block pointers, inline assembly under the
    interpreter) or a question to torch.cuda about a GPU the grade does not run on is the
    grade's limit or Triton's, not a kata left unimplemented: it is said so.
    """
    error: Exception = exc
    chain = [exc]
    # The interpreter wraps an error once per call level (the kernel, each @triton.jit helper
    # such as tl.sum): the learner's error is the innermost cause, and its traceback is all the
    # levels' (the kernel's own line is in an outer one).
    while type(error).__name__ in ("InterpreterError", "CompilationError") and isinstance(error.__cause__, Exception):
        error = error.__cause__
        chain.append(error)
    in_kernel = len(chain) > 1
    if in_kernel:
        error = error.with_traceback(_joined(chain[1:]))
    if stage is not None:
        stage.name = "kernel" if in_kernel or isinstance(error, TritonUnsupported) else "launcher"
    frames = traceback.extract_tb(error.__traceback__)
    innermost = frames[-1].filename if frames else ""
    if isinstance(error, NotImplementedError) and f"{os.sep}triton{os.sep}" in innermost:
        # "... not supported in interpreter mode" is the interpreter's limit; anything else
        # (block pointers were removed in 3.9) is Triton's own, on a GPU too.
        where = (
            "Triton's CPU interpreter, which runs kernels here without a GPU,"
            if "interpreter" in str(error)
            else f"Triton {_triton_version()}"
        )
        return _with_traceback(TritonUnsupported(f"{where} cannot run this: {error}"), error)
    if _asked_a_gpu(frames) and not any(t.is_cuda for t in inputs):
        return _with_traceback(
            TritonUnsupported(
                f"the launcher asked torch.cuda or Triton's driver about a GPU ({type(error).__name__}: {error}), "
                "but this case runs the kernel on CPU tensors under Triton's interpreter: size the grid from the "
                "inputs (for example torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda "
                "else os.cpu_count())"
            ),
            error,
        )
    return error


#: Where an exception comes from when a launcher asks about a GPU: torch.cuda, or Triton's
#: driver and GPU backends (`triton.runtime.driver.active...`, "0 active drivers" without one).
_GPU_MODULES = (
    f"{os.sep}torch{os.sep}cuda{os.sep}",
    f"{os.sep}triton{os.sep}runtime{os.sep}driver.py",
    f"{os.sep}triton{os.sep}backends{os.sep}",
)


def _asked_a_gpu(frames: traceback.StackSummary) -> bool:
    return any(marker in frame.filename for frame in frames for marker in _GPU_MODULES)


def _joined(chain: list[Exception]) -> TracebackType | None:
    """One traceback through every exception of `chain`, outermost first."""
    frames = []
    for error in chain:
        tb = error.__traceback__
        while tb is not None:
            frames.append((tb.tb_frame, tb.tb_lasti, tb.tb_lineno))
            tb = tb.tb_next
    joined: TracebackType | None = None
    for frame, lasti, lineno in reversed(frames):
        joined = TracebackType(joined, frame, lasti, lineno)
    return joined


def _with_traceback(new: Exception, old: BaseException) -> Exception:
    return new.with_traceback(old.__traceback__)


def _triton_version() -> str:
    return str(getattr(sys.modules.get("triton"), "__version__", ""))


def run_program(fn: Any, program: Program, stage: Stage | None = None) -> RunReply:
    """A launcher's Program: each step calls the launcher once per autotune config."""
    if program.launch is None:
        raise ValueError("a launcher's Program says how it is called (Program.launch)")
    names, output_names = program.launch.inputs, program.launch.outputs
    if stage is not None:
        stage.name = "launcher"
    replies = []
    for step in program.steps:
        inputs = [t if t.device.type == program.device else _moved(t, program.device) for t in step.inputs]
        pristine = [_copied(t) for t in inputs]  # a launcher may write into its inputs (Liger's dX into dY)
        index, passes = 0, 1
        while index < passes:
            with tuning.tuning_pass(index) as current:
                sent = inputs if index == 0 else [_copied(t) for t in pristine]
                try:
                    result, status, found, watch = run_launcher(fn, sent, list(step.extra), names, output_names, stage)
                except Exception as exc:
                    raise _in_config(exc, current.label()) from None
            passes = current.configs
            outputs = _outputs(result, program.cls, output_names)
            reply = _reply(outputs, output_names, status, found, current.label(), watch)
            if program.launch.timed and index == 0 and sent and sent[0].is_cuda:
                reply.timing = _timings(fn, sent, list(step.extra))
            replies.append(reply)
            index += 1
    return RunReply(True, replies)


def _in_config(exc: Exception, label: str) -> Exception:
    """The exception of one config's pass, naming the config (its type kept)."""
    if label and exc.args and isinstance(exc.args[0], str):
        exc.args = (f"{exc.args[0]} (autotune config {label})", *exc.args[1:])
    return exc


def _outputs(result: Any, launcher: str, output_names: tuple[str, ...]) -> list[torch.Tensor]:
    outputs = [] if result is None else list(result) if isinstance(result, (tuple, list)) else [result]
    for position, value in enumerate(outputs):
        if not isinstance(value, torch.Tensor):
            name = output_names[position] if position < len(output_names) else f"output {position + 1}"
            expected = f"({', '.join(output_names)})" if output_names else "tensors"
            what = "None" if value is None else f"a {type(value).__name__}"
            raise TypeError(f"{launcher} returned {what} for {name}: expected {expected}, each a tensor")
    return outputs


def _reply(
    outputs: list[torch.Tensor],
    output_names: tuple[str, ...],
    status: GuardStatus,
    found: list[OutOfBounds],
    label: str,
    watch: Watch,
) -> StepReply:
    guarded = status.state is GuardState.ACTIVE and interpreting()
    names = _allocation_names(watch, outputs, output_names)
    # The outputs' margins first: a launcher that allocates many tensors cannot push them out.
    order = sorted(range(len(watch.allocated)), key=lambda i: names[f"@{i}"] not in output_names)
    bases = [watch.allocated[i][0] for i in order[:MAX_ALLOCATIONS]]
    margins = [
        KernelMargin(names[f"@{i}"], _plain(base[:MARGIN]), _plain(base[-MARGIN:]))
        for i, base in zip(order, bases, strict=False)
    ]
    return StepReply(
        outputs=[_plain(t) for t in outputs],
        out_of_bounds=found,
        nan_filled=watch.nan_filled,
        guard=status,
        config=label,
        launches=list(watch.launches),
        written=[watch.coverage(t) if guarded else None for t in outputs],
        margins=margins,
    )


def _plain(t: torch.Tensor) -> torch.Tensor:
    return t.detach().as_subclass(torch.Tensor).to("cpu").clone()


def _copied(t: torch.Tensor) -> torch.Tensor:
    """A copy with the same layout: its whole storage copied, gaps and all."""
    return _moved(t, t.device.type)


def _moved(t: torch.Tensor, device: str) -> torch.Tensor:
    """A strided input keeps its layout on the device: its whole storage moves, gaps and all."""
    base = torch.empty(0, dtype=t.dtype, device=device)
    storage = t.untyped_storage()
    flat = torch.empty(0, dtype=t.dtype, device=t.device).set_(
        storage, 0, (storage.nbytes() // t.element_size(),), (1,)
    )
    moved = flat.to(device, copy=True)
    return base.set_(moved.untyped_storage(), t.storage_offset(), t.shape, t.stride())


def _timings(fn: Any, inputs: list[torch.Tensor], extra: list[Any], repeats: int = 30) -> LauncherTiming:
    """The launcher's, a copy's and torch eager's times on a TIMED_SHAPE input of x's dtype made on the GPU.

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
    return LauncherTiming(kernel, copy, median_ms(eager))
