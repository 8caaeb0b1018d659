"""The untrusted side of grading: import the learner's file and run what the runner asks.

Run as `python -m normkata.grading.worker REQUEST_FD REPLY_FD`; its first request says where it is confined.
It answers `Program`s with raw outputs only (tensors, shapes, names); it never sees a reference value or a verdict.
Before the learner's file is imported it confines itself (normkata.grading.sandbox, where the
kernel allows), and normkata itself is made unimportable and the content folders unreadable
from this process.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import os
import sys
import tempfile
import traceback
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from normkata.grading.codec import CodecError
from normkata.grading.contract import dtype_of
from normkata.grading.messages import (
    SCRATCH_VARIABLES,
    Failure,
    Hello,
    LoadReply,
    LoadRequest,
    Program,
    ProgramKind,
    Request,
    RunReply,
    Step,
    StepReply,
)
from normkata.grading.protocol import ChannelClosed, receive, send
from normkata.grading.wire import from_wire, prime, to_wire
from normkata.grading.worker import calls, held, kernels
from normkata.grading.worker.stage import Stage
from normkata.threads import configure_threads


class Forbidden(Exception):
    """Raised in place of a torch function the kata forbids."""


def _refusal(name: str) -> str:
    return f"torch's own {name} is not allowed in this kata: write the computation yourself"


#: Where torch keeps Python decompositions of its ops: plain functions made of elementary ops,
#: which no TorchFunctionMode sees as the op they decompose.
_DECOMPOSITION_MODULES = ("torch._refs", "torch._decomp", "torch._prims")


def forbidden_identities(forbidden: set[str]) -> dict[Any, str]:
    """The forbidden ops as objects, each with its name: torch.X, F.X, torch._C._VariableFunctions.X,
    torch.ops.aten.X and every overload of it. Matched by identity, whatever name reached them."""
    import torch.nn.functional as F

    found: dict[Any, str] = {}
    for name in forbidden:
        for namespace in (torch, F, torch._C._VariableFunctions, torch.Tensor):
            value = getattr(namespace, name, None)
            if value is not None and callable(value):
                found[value] = name
        packet = getattr(torch.ops.aten, name, None) if hasattr(torch.ops.aten, name) else None
        if packet is not None:
            found[packet] = name
            for overload in packet.overloads():
                found[getattr(packet, overload)] = name
    return found


def refuse_decompositions(forbidden: set[str], seen: set[str]) -> None:
    """Replace torch's Python decompositions of the forbidden ops with refusals, wherever they are
    kept (module attributes under any name, decomposition tables), matched by identity."""
    originals: dict[int, str] = {}
    modules = [m for n, m in list(sys.modules.items()) if m is not None and n.startswith(_DECOMPOSITION_MODULES)]
    for module in modules:
        for name in forbidden:
            value = vars(module).get(name)
            if callable(value):
                originals[id(value)] = name
    tables = []
    for module in modules:
        for value in list(vars(module).values()):
            if isinstance(value, dict) and value and all(isinstance(k, torch._ops.OpOverload) for k in list(value)[:3]):
                tables.append(value)
    for table in tables:
        for op, fn in list(table.items()):
            name = op.name().split("::")[-1].split(".")[0]
            if name in forbidden and callable(fn):
                originals[id(fn)] = name

    def refusal(name: str) -> Any:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            seen.add(name)
            raise Forbidden(_refusal(name))

        return refuse

    for module in modules:
        for key, value in list(vars(module).items()):
            if callable(value) and id(value) in originals:
                setattr(module, key, refusal(originals[id(value)]))
    for table in tables:
        for op, fn in list(table.items()):
            if id(fn) in originals:
                table[op] = refusal(originals[id(fn)])


class ForbiddenOps(TorchFunctionMode):
    """Sees every torch function call, however it was reached (F.rms_norm, torch.ops.aten.*,
    torch._C._VariableFunctions, a name built at run time, ...), and refuses the kata's forbidden
    ones, matched by identity (and, for anything else torch names so, by name)."""

    def __init__(self, forbidden: set[str]) -> None:
        super().__init__()
        self.forbidden = forbidden
        self.identities = forbidden_identities(forbidden) if forbidden else {}
        self.seen: set[str] = set()

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        try:
            name = self.identities.get(func)
        except TypeError:  # an unhashable callable
            name = None
        name = name or str(getattr(func, "__name__", "")).split(".")[0]
        if name in self.forbidden:
            self.seen.add(name)
            raise Forbidden(_refusal(name))
        return func(*args, **(kwargs or {}))


class _Session:
    def __init__(self) -> None:
        self.learner_file = ""
        self.module: ModuleType | None = None
        self.guard = ForbiddenOps(set())

    @contextlib.contextmanager
    def learner_code(self) -> Iterator[None]:
        """Learner code runs under the forbidden-API mode; a mode it pushed is popped after."""
        with self.guard:
            yield

    # -- loading the learner's file ------------------------------------------------------------

    def load(self, request: LoadRequest) -> LoadReply:
        self.learner_file = os.path.abspath(request.file)
        self.guard = ForbiddenOps(set(request.forbidden_ops))
        if request.forbidden_ops:
            refuse_decompositions(set(request.forbidden_ops), self.guard.seen)
        for folder in reversed(request.search_path):
            sys.path.insert(0, folder)
        before = _global_state()
        name = os.path.splitext(os.path.basename(self.learner_file))[0]
        spec = importlib.util.spec_from_file_location(name, self.learner_file)
        if spec is None or spec.loader is None:
            return LoadReply(False, failure=Failure("ImportError", "cannot import this file", 0, "import"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            with self.learner_code():
                spec.loader.exec_module(module)
        except SyntaxError as exc:
            return LoadReply(False, failure=Failure("SyntaxError", exc.msg or str(exc), exc.lineno or 0, "import"))
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the file must import cleanly
            return LoadReply(False, failure=self._failure(exc, "import"))
        self.module = module
        after = _global_state()
        changed = [f"{key}: {before[key]} -> {after[key]}" for key in before if before[key] != after[key]]
        missing = [cls for cls in request.classes if not _defined(getattr(module, cls, None))]
        return LoadReply(True, missing, changed)

    # -- running a program ---------------------------------------------------------------------

    def run(self, program: Program) -> RunReply:
        assert self.module is not None
        stage = Stage("build")
        try:
            with self.learner_code():
                reply = self._run(program, stage)
        except BaseException as exc:
            reply = RunReply(False, failure=self._failure(exc, stage.name))
        reply.forbidden_calls = sorted(self.guard.seen)
        return reply

    def _run(self, program: Program, stage: Stage) -> RunReply:
        _seed(program.seed)
        cls = getattr(self.module, program.cls)
        target = calls.build(cls, program)
        if program.kind is ProgramKind.LAUNCHER:
            reply: RunReply = kernels.run_program(target, program, stage)  # it says: launcher or kernel
            return reply
        if program.kind is ProgramKind.FUNCTION:
            watched: set[str] = set()
            returned: list[torch.Tensor | None] = []
            stage.name = "forward"
            with calls.watch_backward(cls, watched, returned):
                steps = [self._step(target, step, program, stage, watched, returned) for step in program.steps]
            return RunReply(True, steps)
        if program.kind is ProgramKind.OBJECT:
            stage.name = "forward"
            return RunReply(True, [self._step(target, step, program, stage) for step in program.steps])
        module: torch.nn.Module = target
        if program.state is not None:
            stage.name = "load_state"
            held.load_what_fits(module, program.state)
        if program.device != "cpu" or program.dtype:
            moved = module.to(device=program.device, dtype=dtype_of(program.dtype))
            module = moved if isinstance(moved, torch.nn.Module) else module
        module.train(program.mode == "train")
        stage.name = "forward"
        steps = [self._step(module, step, program, stage) for step in program.steps]
        stage.name = "inspect"
        return RunReply(True, steps, held.held_module(module) if program.inspect else None)

    def _step(
        self,
        target: Any,
        step: Step,
        program: Program,
        stage: Stage,
        watched: set[str] | None = None,
        returned: list[torch.Tensor | None] | None = None,
    ) -> StepReply:
        module = target if program.kind is ProgramKind.MODULE else None
        if step.mode and module is not None:
            module.train(step.mode == "train")
        inputs = [t.to(program.device) for t in step.inputs]
        if step.input_grad:
            inputs = [t.detach().requires_grad_(True) if t.is_floating_point() else t for t in inputs]
        leading = []
        if step.other is not None:  # a second object, prepared by its own steps (a.merge(b))
            other = calls.build(getattr(self.module, program.cls), program)
            for other_step in step.other:
                self._step(other, other_step, program, stage)
            leading.append(other)
        context = torch.no_grad() if step.no_grad else contextlib.nullcontext()
        if watched is not None:  # what forward and then backward do with autograd, for this step
            watched.clear()
        # An object's method is named as itself (an error in `merge` is not "in forward").
        stage.name = f"method:{step.method}" if program.kind is ProgramKind.OBJECT and step.method else "forward"
        try:
            with context:
                output = calls.invoke(target, program.kind, step, inputs, leading)
        except Exception as exc:
            if step.expect_error:
                return StepReply(
                    raised=type(exc).__name__, message=str(exc)[:300], raised_builtin=held.builtin_name(exc)
                )
            raise
        outputs = calls.outputs_of(output, calls.describe_call(program, step))
        result = StepReply(outputs=[held.plain(t) for t in outputs])
        if step.grad_output is not None:
            stage.name = "backward"
            parameters = held.named_parameters(module) if module is not None else []
            for _, parameter in parameters:  # module.zero_grad(set_to_none=True), as torch holds them
                held.clear_grad(parameter)
            if returned is not None:
                returned.clear()
            first = outputs[0]
            first.backward(step.grad_output.to(device=first.device, dtype=first.dtype))
            result.input_grads = [held.grad_of(t) for t in inputs]
            result.param_grads = {name: held.grad_of(parameter) for name, parameter in parameters}
            result.autograd_in_backward = sorted(watched or ())
            result.backward_returned = list(returned or [])
        if step.buffers and module is not None:
            buffers = held.named_buffers(module)
            result.buffers = {name: held.plain(b) for name, b in buffers}
            result.buffer_gradients = {name: held.probe(b) for name, b in buffers}
        return result

    def _failure(self, exc: BaseException, stage: str) -> Failure:
        line = 0
        for frame in traceback.extract_tb(exc.__traceback__):
            if os.path.abspath(frame.filename) == self.learner_file:
                line = frame.lineno or 0
        if isinstance(exc, SystemExit):
            message = f"exit code {exc.code}"
        else:
            try:
                message = str(exc)
            except BaseException:  # a hostile __str__
                message = "(the exception could not be shown)"
        return Failure(type(exc).__name__, message[:2000], line, stage, held.builtin_name(exc))


def _seed(seed: int) -> None:
    """torch.manual_seed, without its cost here: it queues a lazy seeding for each accelerator
    backend, formatting the whole call stack each time (0.6 ms a program at the worker's depth).
    CUDA, when this worker uses it, was started in the warm-up, so it is seeded at once."""
    torch.default_generator.manual_seed(seed)
    if torch.cuda.is_initialized():
        torch.cuda.manual_seed_all(seed)


def _defined(value: Any) -> bool:
    """A class the kata asks for, or a kernel kata's launcher function."""
    return isinstance(value, type) or inspect.isfunction(value)


def _global_state() -> dict[str, str]:
    state = {
        "default dtype": str(torch.get_default_dtype()),
        "grad enabled": str(torch.is_grad_enabled()),
        "deterministic algorithms": str(torch.are_deterministic_algorithms_enabled()),
    }
    if hasattr(torch, "get_default_device"):
        state["default device"] = str(torch.get_default_device())
    return state


def _guard_content(protected: list[str]) -> None:
    """From here on, normkata cannot be imported and the content folders cannot be opened.

    A second fence behind the OS sandbox, for systems where that is partial or off.
    """
    roots = tuple(os.path.join(os.path.realpath(p), "") for p in protected)
    for name in [m for m in sys.modules if m == "normkata" or m.startswith("normkata.")]:
        del sys.modules[name]

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if event == "import" and str(args[0]).split(".")[0] == "normkata":
            raise ImportError("normkata cannot be imported by a kata submission")
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.realpath(os.fsdecode(args[0]))
            if path.startswith(roots):
                raise PermissionError(f"{path} is not readable by a kata submission")

    sys.addaudithook(audit)


def _warm_up() -> None:
    """Run each dtype's kernels once, so nothing needs to be loaded after confinement.

    On a machine with a GPU this is also where CUDA starts: after the fork (the zygote never
    touches CUDA, which cannot survive a fork) and before confinement, so the driver's files,
    device nodes and libraries are opened while they are still reachable.
    """
    devices = ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]
    for device in devices:
        _warm_up_on(device)


def _warm_up_on(device: str) -> None:
    for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
        x = torch.randn(4, 8, dtype=dtype, device=device, requires_grad=True)
        y = (x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5).to(dtype)).softmax(-1)
        out = y @ x.t()
        out.backward(torch.ones_like(out))  # with a gradient, as the suites call it: loads what that needs
        torch.var_mean(x.detach(), 0, unbiased=False)


def _confine(scratch: str, learner_folder: str, protected: list[str]) -> tuple[str, list[str]]:
    """Confine this process with the operating system; the level and protections now active.

    Readable: what Python and torch need, and the learner's folder (kata files may import each
    other). Writable: the scratch folder only. Never readable: normkata, its content and the
    progress store, even inside a readable folder.
    """
    from pathlib import Path

    from normkata.grading import sandbox

    if os.environ.get("NORMKATA_SANDBOX") == "off":  # benchmarks/grade.py measures the sandbox's cost
        return "off: disabled by NORMKATA_SANDBOX=off", []
    policy = sandbox.Policy(
        Path(scratch),
        readable=(*sandbox.default_readable(), Path(learner_folder)),
        denied=(*sandbox.default_denied(), *(Path(p) for p in protected)),  # confine() cuts these out
        parent_pid=os.getppid(),
    )
    level = sandbox.confine(policy)
    return level.describe(), list(level.active)


def serve(request_fd: int, reply_fd: int) -> None:
    """Warm up, then wait for the confinement (the runner may start a worker before the grade
    that uses it), confine, say hello, then answer requests until told to exit."""
    configure_threads()
    _warm_up()
    prime(Request, Hello, LoadReply, RunReply)
    if os.environ.get("NORMKATA_SANDBOX") != "off":
        from normkata.grading import sandbox

        sandbox.prepare()
    try:
        first = from_wire(Request, receive(request_fd))
    except ChannelClosed:  # a spare worker whose runner ended: nothing was asked of it
        return
    if first.op != "confine" or first.confine is None:
        return
    confinement = first.confine
    _settle_in(confinement.scratch)
    kernels.prepare_environment(confinement.scratch)  # before the learner's `@triton.jit` kernels are made
    level, active = _confine(confinement.scratch, confinement.learner_folder, confinement.protected)
    _guard_content(confinement.protected)
    os.chdir(confinement.scratch)
    session = _Session()
    hello = Hello(str(torch.__version__), torch.cuda.is_available(), level, active)
    send(reply_fd, to_wire(hello))
    while True:
        request = from_wire(Request, receive(request_fd))
        if request.op == "load" and request.load is not None:
            send(reply_fd, to_wire(session.load(request.load)))
        elif request.op == "run" and request.program is not None:
            _send_run_reply(reply_fd, session.run(request.program))
        else:
            break


def _settle_in(scratch: str) -> None:
    """HOME and TMPDIR point at the grade's scratch folder (what libraries write under either lands
    there): the grader's own are not in this process's environment (launch.worker_environment)."""
    for name in SCRATCH_VARIABLES:
        os.environ[name] = scratch
    tempfile.tempdir = None  # chosen again, from TMPDIR, when next asked


def _send_run_reply(reply_fd: int, reply: RunReply) -> None:
    """Send `reply`; one that holds what the codec does not carry (a complex or float8 tensor
    the learner returned) becomes the learner's failure, not this process's death."""
    try:
        send(reply_fd, to_wire(reply))  # encoded whole before any byte is written
    except CodecError as exc:
        failure = Failure("TypeError", f"the result holds something the grader cannot read ({exc})", 0, "forward")
        send(reply_fd, to_wire(RunReply(False, failure=failure, forbidden_calls=reply.forbidden_calls)))


def forked_main(request: Any, reply: Any, output: Any) -> None:
    """Entry point of a worker forked by the zygote (normkata.grading.launch): the three
    arguments are multiprocessing Connections carrying the pipes' descriptors."""
    os.setsid()  # a process group of its own, killed whole at the end, as a spawned worker's is
    keep = {request.fileno(), reply.fileno(), output.fileno()}
    os.dup2(output.fileno(), 1)
    os.dup2(output.fileno(), 2)
    # Whatever else the zygote held (its own pipes, the resource tracker's) is not the learner's.
    for fd in _open_descriptors():
        if fd > 2 and fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)
    sys.dont_write_bytecode = True
    os.chdir("/")  # until confined: then the scratch folder
    serve(request.fileno(), reply.fileno())
    sys.stdout.flush()
    os._exit(0)  # no multiprocessing teardown: nothing of it is ours to run


def _open_descriptors() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        return list(range(3, 256))


def main() -> None:
    serve(int(sys.argv[1]), int(sys.argv[2]))
