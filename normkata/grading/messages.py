"""What the runner and the worker say to each other, and the facts both sides rely on.

    runner ──(Request: Confinement, LoadRequest, Program of Steps)──> worker
    runner <──(Hello, LoadReply, RunReply of StepReplies)── worker

Flattened by `normkata.grading.wire` and carried as normkata.grading.codec's bytes, so nothing
the worker sends runs code on the runner's side. The worker's package (normkata.grading.worker)
imports this module and the contract's dtypes; the runner's side (proxy, checks, kernel_checks)
reads the replies. A reply carries raw outputs and facts only: every verdict is drawn outside
the worker's process. The public result (`grade --json`, the record) is normkata.grading.contract.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from normkata.grading.contract import dtype_name

if TYPE_CHECKING:  # the CLI reads results without importing torch; the runner and worker have it
    import torch

# -- runner → worker ---------------------------------------------------------------------------


#: The variables a worker points at its scratch folder once it learns its confinement (the rest of
#: its environment: normkata.grading.launch.worker_environment).
SCRATCH_VARIABLES = ("HOME", "TMPDIR")


@dataclass
class Confinement:
    """What a worker confines itself to before it learns which file it will import: the scratch
    folder it may write, the learner's folder it may read, the folders it may never read. Sent
    as the first request, so a worker can be started (and warmed up) before the grade that uses it."""

    scratch: str
    learner_folder: str
    protected: list[str]


@dataclass
class LoadRequest:
    file: str
    classes: list[str]
    #: torch function names (as a TorchFunctionMode sees them) the kata forbids.
    forbidden_ops: list[str]
    #: The learner's workspace, importable from the file (kata files may import each other).
    search_path: list[str] = field(default_factory=list)


@dataclass
class Step:
    """One call on what a Program built, and what to report about it.

    The call is `target(*inputs)` (forward, for a module), `target.<method>(*inputs, *extra,
    **call_kwargs)`, or a read of `target.<attribute>`; for a Function, `cls.apply(*inputs,
    *extra)`. The result comes back as tensors: None as none, a number as a 0-dim float64.
    """

    inputs: list[torch.Tensor]
    mode: str | None = None  # "train" | "eval": switch before this call
    input_grad: bool = False  # every floating input requires grad
    grad_output: torch.Tensor | None = None  # backward of the first output with this
    no_grad: bool = False
    buffers: bool = False
    expect_error: bool = False
    method: str | None = None
    attribute: str | None = None
    #: Plain values (numbers, text) appended to the positional arguments: eps, unbiased=...
    extra: list[Any] = field(default_factory=list)
    call_kwargs: dict[str, Any] = field(default_factory=dict)
    #: Object kind: build a fresh object from the same Program, run these steps on it, and pass
    #: it as the first argument of this step's method (`a.merge(b)`).
    other: list[Step] | None = None


class ProgramKind(str, Enum):
    """What a Program's `cls` names, and so how the worker builds and calls it."""

    MODULE = "module"  # an nn.Module: built, state loaded, moved, switched to train or eval
    FUNCTION = "function"  # a torch.autograd.Function: nothing built, each step calls `cls.apply`
    OBJECT = "object"  # a plain class: built, never moved or switched to train
    LAUNCHER = "launcher"  # a kernel kata's launcher function (normkata.grading.worker.kernels)


@dataclass(frozen=True)
class Launch:
    """How a kernel kata's launcher is called: its inputs' and outputs' names (what the guard's
    findings and the report call them), and whether its speed is measured (on a GPU only)."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    timed: bool = False


@dataclass(frozen=True)
class Program:
    """Build `cls(*args, **kwargs)`, load `state`, move it, then run `steps` in order.

    `kind` says what `cls` is (ProgramKind), fixed when the Program is made; a launcher's
    Program says how it is called in `launch`, and no other kind has one.
    """

    cls: str
    args: list[Any]
    kwargs: dict[str, Any]
    state: dict[str, torch.Tensor] | None = None
    device: str = "cpu"
    dtype: str | None = None
    mode: str = "train"
    steps: list[Step] = field(default_factory=list)
    inspect: bool = False
    seed: int = 0
    kind: ProgramKind = ProgramKind.MODULE
    launch: Launch | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, ProgramKind):
            raise ValueError(f"kind must be a ProgramKind, not {self.kind!r}")
        if (self.kind is ProgramKind.LAUNCHER) != (self.launch is not None):
            raise ValueError("launch is given for a launcher's Program, and only for it")


@dataclass
class Request:
    op: str  # confine (first, answered by Hello) | load | run | exit
    confine: Confinement | None = None
    load: LoadRequest | None = None
    program: Program | None = None


# -- worker → runner ---------------------------------------------------------------------------


@dataclass
class Failure:
    """The learner's code raised (or the file would not import)."""

    error: str  # the exception's type name, SyntaxError, SystemExit, ...
    message: str
    line: int = 0
    stage: str = "run"  # import | build | load_state | forward | backward
    #: The built-in exception class nearest in the raised class's MRO: what `except ValueError`
    #: matches (a learner's class named ValueError that is not one reads `Exception` here).
    builtin: str = ""


@dataclass
class Hello:
    torch: str
    cuda: bool
    sandbox: str
    protections: list[str] = field(default_factory=list)


@dataclass
class LoadReply:
    ok: bool
    missing: list[str] = field(default_factory=list)
    global_changes: list[str] = field(default_factory=list)
    failure: Failure | None = None


@dataclass
class HeldModule:
    """A module as torch holds it (worker → runner): tensors and the names torch gives them.

    The worker reads it from torch's own storage of each submodule (`_parameters`, `_buffers`,
    `_modules`, `_non_persistent_buffers_set`), with torch's rules for naming and de-duplicating,
    and never through a method the learner's class may override (`named_parameters`,
    `state_dict`, `named_children`, ...) nor a tensor attribute a Tensor subclass may answer (its
    reads run with torch functions and Python dispatch off). It carries no verdict, no flag and no
    shape or dtype written as text: the runner derives those from the tensors (`Inspection.observe`).
    """

    #: Every parameter and buffer under each name torch gives it; None: registered as None.
    tensors: dict[str, torch.Tensor | None]
    parameters: list[str]  # the names `named_parameters()` gives, in its order
    buffers: list[str]  # the names `named_buffers()` gives, then those registered as None
    state_dict: list[str]  # the keys `state_dict()` holds, in its order
    children: list[str]  # the names `named_children()` gives
    #: By name in `parameters` and `buffers`: the gradient torch's autograd returns for the probe
    #: `t.sum()` taken on a plain alias of the tensor (ones where it requires grad); None: none.
    gradients: dict[str, torch.Tensor | None] = field(default_factory=dict)


@dataclass
class TensorInfo:
    """One tensor of a module, as the runner observes it (never sent by the worker)."""

    value: torch.Tensor
    is_parameter: bool  # registered in torch's `_parameters` of its module
    requires_grad: bool  # autograd returned its gradient (`requires_grad_from`)

    @property
    def shape(self) -> list[int]:
        return list(self.value.shape)

    @property
    def dtype(self) -> str:
        return dtype_name(self.value.dtype)


def requires_grad_from(value: torch.Tensor, gradient: torch.Tensor | None) -> bool:
    """A tensor requires grad when autograd gave the probe `value.sum()` a gradient: one of its
    shape, all ones. Observed on a tensor that came back, rather than a flag: a Tensor subclass
    answers `requires_grad` itself, however it is read in the worker (`__torch_function__` sees
    even TensorBase's own getter: katas/batchnorm/fixtures/hostile_buffers_torch_function.py)."""
    import torch

    return gradient is not None and gradient.shape == value.shape and bool(torch.all(gradient == 1))


@dataclass
class Inspection:
    """A module's structure as the suites read it: derived by the runner from a `HeldModule`."""

    parameters: dict[str, TensorInfo]
    buffers: dict[str, TensorInfo | None]  # None: registered as None (torch does that)
    state_dict: list[str]
    children: list[str]
    #: Every state_dict entry's tensor (a module used twice gives two keys, one tensor).
    state: dict[str, torch.Tensor] = field(default_factory=dict)

    @classmethod
    def observe(cls, held: HeldModule) -> Inspection:
        def info(name: str, value: torch.Tensor, is_parameter: bool) -> TensorInfo:
            return TensorInfo(value, is_parameter, requires_grad_from(value, held.gradients.get(name)))

        tensors = held.tensors
        return cls(
            parameters={n: info(n, t, True) for n in held.parameters if (t := tensors.get(n)) is not None},
            buffers={n: None if (t := tensors.get(n)) is None else info(n, t, False) for n in held.buffers},
            state_dict=list(held.state_dict),
            children=list(held.children),
            state={n: t for n in held.state_dict if (t := tensors.get(n)) is not None},
        )


@dataclass
class StateLoad:
    """What load_state_dict(strict=False) could not match: the structural findings. Derived by
    the runner from the state it offered and the module's own state_dict (`derive`)."""

    missing: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.missing or self.unexpected or self.mismatched)

    @classmethod
    def derive(cls, offered: dict[str, torch.Tensor], own: Inspection) -> StateLoad:
        """What torch's load_state_dict would report loading `offered` into the module `own`
        shows, where torch loads an entry of the same shape and a (1,) entry into a 0-dim one
        (its backward-compatible rule; the worker loads what fits by the same rule)."""
        shapes = {name: tuple(value.shape) for name, value in own.state.items()}
        mismatched = sorted(k for k in offered if k in shapes and not loads_into(shapes[k], tuple(offered[k].shape)))
        missing = sorted(k for k in own.state_dict if k not in offered)
        unexpected = sorted(k for k in offered if k not in shapes)
        return cls(missing, unexpected, mismatched)


def loads_into(own: tuple[int, ...], given: tuple[int, ...]) -> bool:
    """Whether torch's load_state_dict copies an entry of shape `given` into one of shape `own`."""
    return own == given or (own == () and given == (1,))


class Access(str, Enum):
    """How a kernel's lane touched memory (every atomic, compare-and-swap included, is ATOMIC)."""

    READ = "read"
    WRITE = "write"
    ATOMIC = "atomic"


class Side(str, Enum):
    """Where a stray lane landed: before the start or past the end of the tensor nearest it."""

    BEFORE = "before"
    AFTER = "after"


@dataclass(frozen=True)
class OutOfBounds:
    """Lanes of one kind of access, by one program, that the bounds guard switched off because
    they fell outside every tensor the kernel was given (normkata.grading.worker.kernels.guard)."""

    access: Access
    tensor: str  # the kernel argument nearest the address, or the output it became ("y")
    program: tuple[int, int, int]  # the program's grid index
    lanes: int
    side: Side

    def __post_init__(self) -> None:
        if self.lanes < 1:
            raise ValueError(f"lanes must be at least 1, not {self.lanes}")
        if len(self.program) != 3 or any(i < 0 for i in self.program):
            raise ValueError(f"program must be a grid index of three whole numbers >= 0, not {self.program}")

    @property
    def program_text(self) -> str:
        """`2` for a one-dimensional grid's program, `(0, 1, 0)` otherwise: as the report names it."""
        first, *rest = self.program
        return str(first) if rest == [0, 0] else f"({', '.join(str(i) for i in self.program)})"


class GuardState(str, Enum):
    """Whether the bounds guard watched a launch lane by lane."""

    ACTIVE = "active"  # every load, store and atomic checked; the bytes kernels wrote recorded
    OFF = "off"  # kernels compiled for the GPU: launches are recorded, lanes are not
    UNAVAILABLE = "cannot run"  # Triton's interpreter could not be guarded: not even launches are recorded


@dataclass(frozen=True)
class GuardStatus:
    state: GuardState
    #: Not active: why, as the report says it ("off: kernels are compiled for the GPU ...").
    reason: str = ""

    def __post_init__(self) -> None:
        if (self.state is GuardState.ACTIVE) != (not self.reason):
            raise ValueError("reason is given when the guard is not active, and only then")

    @property
    def records_launches(self) -> bool:
        return self.state is not GuardState.UNAVAILABLE


@dataclass(frozen=True)
class LauncherTiming:
    """Medians of CUDA-event timings on a `kernels.TIMED_SHAPE` input, in milliseconds: the
    launcher, a copy of the same bytes, torch eager. Reported, never scored (the worker measures)."""

    launcher_ms: float
    copy_ms: float
    eager_ms: float

    def __post_init__(self) -> None:
        for name in ("launcher_ms", "copy_ms", "eager_ms"):
            value = getattr(self, name)
            if not 0 <= value < float("inf"):
                raise ValueError(f"{name} must be a finite time >= 0, not {value}")


@dataclass
class KernelMargin:
    """The sentinel margins around one tensor a kernel kata's launcher allocated, as they are
    after the call: the runner compares them with the sentinel (normkata.grading.worker.kernels)."""

    tensor: str  # the output it became ("y"), or "a tensor your launcher allocated"
    before: torch.Tensor
    after: torch.Tensor


@dataclass
class StepReply:
    outputs: list[torch.Tensor] = field(default_factory=list)
    raised: str | None = None
    message: str = ""
    #: The step's exception as `except` matches it (Failure.builtin), when it raised and was expected to.
    raised_builtin: str | None = None
    input_grads: list[torch.Tensor | None] = field(default_factory=list)
    #: By parameter name (as torch holds them, HeldModule): each parameter's gradient.
    param_grads: dict[str, torch.Tensor | None] = field(default_factory=dict)
    #: Step.buffers: every buffer's value after the step (as torch holds them, HeldModule).
    buffers: dict[str, torch.Tensor] = field(default_factory=dict)
    #: Step.buffers: by buffer name, autograd's gradient of the probe `b.sum()` (HeldModule.gradients).
    buffer_gradients: dict[str, torch.Tensor | None] = field(default_factory=dict)
    #: Function kind: how the learner's backward used autograd during this step's backward
    #: (`torch.autograd.grad`, `Tensor.backward`, `grad mode enabled`, `grad_fn on a gradient`).
    autograd_in_backward: list[str] = field(default_factory=list)
    #: Function kind: each gradient the learner's backward returned, before autograd sums one that
    #: merely broadcasts to its input (None where it returned None or something not a tensor).
    backward_returned: list[torch.Tensor | None] = field(default_factory=list)
    #: Launcher kind (kernel katas): the lanes the bounds guard switched off (normkata.grading.worker.kernels).
    out_of_bounds: list[OutOfBounds] = field(default_factory=list)
    #: Launcher kind: masked-off lanes of loads without `other=` that the guard filled with NaN.
    nan_filled: int = 0
    #: Launcher kind: whether the bounds guard watched this launch (None for the other kinds).
    guard: GuardStatus | None = None
    #: Launcher kind, `Launch.timed` on a GPU: how fast the launcher ran.
    timing: LauncherTiming | None = None
    #: Launcher kind: the autotune configs this reply was computed under ("" without autotune);
    #: a launcher with autotuned kernels answers each step once per config (normkata.grading.worker.kernels.tuning).
    config: str = ""
    #: Launcher kind: the kernels launched, in order (the guard saw them run).
    launches: list[str] = field(default_factory=list)
    #: Launcher kind: per output, one flag per element that a kernel wrote (or that the launcher
    #: computed from memory a kernel wrote); None where the guard could not tell.
    written: list[torch.Tensor | None] = field(default_factory=list)
    #: Launcher kind: the margins of every floating tensor the launcher allocated.
    margins: list[KernelMargin] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.nan_filled < 0:
            raise ValueError(f"nan_filled must be a count >= 0, not {self.nan_filled}")

    @property
    def output(self) -> torch.Tensor:
        return self.outputs[0]


@dataclass
class RunReply:
    ok: bool
    steps: list[StepReply] = field(default_factory=list)
    inspect: HeldModule | None = None
    forbidden_calls: list[str] = field(default_factory=list)
    failure: Failure | None = None


# -- what both sides of a kernel kata rely on --------------------------------------------------

#: The Triton release the worker's bounds guard was written and tested against (pinned by the
#: `triton` extra; doctor names it when another is installed).
TESTED_TRITON = "3.9.0"
#: What fills the margins around every tensor a launcher allocates: exactly representable in
#: float32, float16 and bfloat16, so no correct kernel writes it by chance. The worker lays it,
#: the runner compares a `KernelMargin` with it (normkata.grading.kernel_checks).
SENTINEL = -16384.0
#: The speed case's shape: 256 MB per fp16 tensor, well past a GPU's L2 cache (50 MB on an
#: H100, where a 32 MB copy measured 1.7x faster per byte than a 256 MB one: docs/gpu.md).
TIMED_SHAPE = (16384, 8192)


def compiles_on_gpu() -> bool:
    """Kernels run compiled only on a GPU with the sandbox off (NORMKATA_SANDBOX=off).

    Compiling a Triton kernel runs ptxas as a child process, and the confined worker may start
    none (seccomp forbids exec): under the sandbox the interpreter runs the kernels, on CUDA
    tensors too (it copies them to the host and back). The worker decides by it whether to
    interpret; a suite, whether the CPU cases or the speed case run.
    """
    import torch

    return os.environ.get("NORMKATA_SANDBOX") == "off" and torch.cuda.is_available()
