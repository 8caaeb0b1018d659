"""The grading contract as code: what crosses each boundary of the grader, and its tolerances.

    normkata grade ──(GradeResult as JSON over a pipe)── runner ──(Program / RunReply)── worker

The runner and the worker exchange the request and reply dataclasses below (flattened by
`normkata.grading.wire`); the runner's verdict reaches the CLI as a `GradeResult`. The
report, the store and the tests read those objects, never loose dicts. Categories are an
enum that every suite is checked against when it is collected; the tolerance table is the one
place a tolerance is written down (docs/grading.md explains each).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from normkata.i18n.text import Text

if TYPE_CHECKING:  # the CLI reads results without importing torch; the runner and worker have it
    import torch

# -- categories and statuses -------------------------------------------------------------------


class Category(str, Enum):
    """Report groups, in the order the report shows them."""

    FORWARD = "forward fp32"
    SHAPES = "shapes"
    STABILITY = "numerical stability"
    LOW_PRECISION = "low precision"
    #: Output and gradients of float64 input, held to float64's tolerance (the backward katas).
    FLOAT64 = "float64"
    GRADIENTS = "gradients"
    STATE = "module state"
    TRAIN_EVAL = "train/eval"
    CUDA = "CUDA"
    #: Rules of the kata (no forbidden API, torch's defaults left alone): they can fail a
    #: submission but earn no points, so an untouched starter scores 0.
    INTEGRITY = "integrity"

    def label(self, lang: str) -> str:
        return Text(self.value, _CATEGORY_ZH[self]).in_(lang)


_CATEGORY_ZH = {
    Category.FORWARD: "fp32 前向",
    Category.SHAPES: "形状",
    Category.STABILITY: "数值稳定性",
    Category.LOW_PRECISION: "低精度",
    Category.FLOAT64: "float64",
    Category.GRADIENTS: "梯度",
    Category.STATE: "模块状态",
    Category.TRAIN_EVAL: "训练/评估模式",
    Category.CUDA: "CUDA",
    Category.INTEGRITY: "规则",
}


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"


class Cause(str, Enum):
    """Why a case ended without judging the learner's results, or which rule it broke: what the
    class gradebook's `reason` column says of a failing submission (normkata.classroom.reasons)."""

    SYNTAX = "syntax"  # the file (or a module it imports) does not parse
    IMPORT = "import"  # importing it raised, exited or crashed
    MISSING_CLASS = "missing-class"
    TIMEOUT = "timeout"  # a case, or the whole grade's budget
    CRASH = "crash"  # the worker died or sent a reply that could not be read
    NOT_RUN = "not-run"  # after too many crashes or time-outs
    RAISED = "raised"  # the learner's code raised
    FORBIDDEN = "forbidden"  # the kata's forbidden API was used
    GLOBAL_STATE = "global-state"  # importing the file changed torch's global state


# -- tolerances --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    #: Widened by `achievable`: the table's atol was tighter than this input allows.
    widened: bool = False

    def describe(self, lang: str) -> str:
        word = Text("tolerance", "容差").in_(lang)
        if self.rtol == self.atol:
            return f"{word} rtol = atol = {self.rtol:g}"
        text = f"{word} rtol = {self.rtol:g}, atol = {self.atol:.3g}"
        if self.widened:
            text += Text(
                f", atol widened to {ACHIEVABLE_FACTOR:g}x what this precision itself errs on this input",
                f"，atol 放宽到该精度在此输入上自身误差的 {ACHIEVABLE_FACTOR:g} 倍",
            ).in_(lang)
        return text

    def at_least(self, other: Tolerance) -> Tolerance:
        return Tolerance(max(self.rtol, other.rtol), max(self.atol, other.atol), self.widened)


#: Every tolerance the suites use (rtol, atol), compared in float64 against the reference run
#: in float64 on the quantised input. docs/grading.md gives the evidence for each.
TOLERANCES: dict[str, Tolerance] = {
    "float32": Tolerance(1e-5, 1e-5),
    "float64": Tolerance(1e-10, 1e-10),
    "bfloat16": Tolerance(1.6e-2, 1.6e-2),
    "float16": Tolerance(2e-3, 2e-3),
    "gradient": Tolerance(1e-4, 1e-4),
    # fp32 with a mean of 1e3: the float32 input itself only carries ~1e-4 absolute.
    "large offset": Tolerance(1e-5, 1e-3),
    "block float32": Tolerance(1e-4, 1e-4),
    "block bfloat16": Tolerance(3e-2, 3e-2),
    "block float16": Tolerance(4e-3, 4e-3),
    # How close an output must be to a mistaken variant for the report to name that mistake.
    "misconception": Tolerance(1e-4, 1e-4),
}

#: A case is never held tighter than its precision can deliver on its own input (docs/grading.md,
#: "A correct file passes on every seed"). For each compared tensor the runner measures how far
#: that precision lands from the float64 truth on this input: the truth computed in the case's
#: dtype (torch's own kernel, or its autograd, where the suite gives it), and the float64 truth on
#: the input with every value moved by up to one rounding of the precision a correct file computes
#: in (float32's 2^-24 for float32 and half-precision inputs, float64's for float64;
#: PERTURBATION_DRAWS draws). The table's tolerance is the floor; its atol is raised to
#: ACHIEVABLE_FACTOR times the largest of those errors.
ACHIEVABLE_FACTOR = 4.0
PERTURBATION_DRAWS = 3


def achievable(floor: Tolerance, error: float) -> Tolerance:
    """`floor`, with atol at least ACHIEVABLE_FACTOR · `error` (what the precision itself errs here)."""
    atol = ACHIEVABLE_FACTOR * error
    if not atol > floor.atol:  # also for nan
        return floor
    return Tolerance(floor.rtol, atol, widened=True)


#: The floating dtypes a Program may name (the wire carries names, not torch objects).
FLOAT_DTYPES = ("float32", "float64", "bfloat16", "float16")


def dtype_name(dtype: torch.dtype) -> str:
    """`float32` for torch.float32: how dtypes are named on the wire and to the learner."""
    return str(dtype).removeprefix("torch.")


def dtype_of(name: str | None) -> torch.dtype | None:
    """torch.float32 for `float32`; None for anything that is not a floating dtype name."""
    import torch

    return getattr(torch, name) if name in FLOAT_DTYPES else None


def tolerance_for(dtype: torch.dtype) -> Tolerance:
    return TOLERANCES[dtype_name(dtype)]


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
    LAUNCHER = "launcher"  # a kernel kata's launcher function (normkata.grading.kernels)


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
    they fell outside every tensor the kernel was given (normkata.grading.kernels.guard)."""

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
    after the call: the runner compares them with the sentinel (normkata.grading.kernels)."""

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
    #: Launcher kind (kernel katas): the lanes the bounds guard switched off (normkata.grading.kernels).
    out_of_bounds: list[OutOfBounds] = field(default_factory=list)
    #: Launcher kind: masked-off lanes of loads without `other=` that the guard filled with NaN.
    nan_filled: int = 0
    #: Launcher kind: whether the bounds guard watched this launch (None for the other kinds).
    guard: GuardStatus | None = None
    #: Launcher kind, `Launch.timed` on a GPU: how fast the launcher ran.
    timing: LauncherTiming | None = None
    #: Launcher kind: the autotune configs this reply was computed under ("" without autotune);
    #: a launcher with autotuned kernels answers each step once per config (normkata.grading.kernels.tuning).
    config: str = ""
    #: Launcher kind: the kernels launched, in order (the guard saw them run).
    launches: list[str] = field(default_factory=list)
    #: Launcher kind: per output, one flag per element that a kernel wrote (or that the launcher
    #: computed from memory a kernel wrote); None where the guard could not tell.
    written: list[torch.Tensor | None] = field(default_factory=list)
    #: Launcher kind: the inputs some kernel loaded (or a layout copy of them the launcher made);
    #: None where the guard could not tell, or no input holds a value.
    loaded: list[str] | None = None
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


# -- CLI → runner: the request and its defaults ------------------------------------------------

#: Seconds any single case may take (grade --timeout, watch --timeout, grade-all).
CASE_TIMEOUT_S = 10.0
#: Where the cases run: auto (the default) runs the CUDA cases when a GPU is present.
DEVICES = ("auto", "cpu", "cuda")
#: The whole grade may take this many times the per-case timeout, and at most this long.
BUDGET_CASES, BUDGET_CEILING_S = 6, 300.0
#: How long a client waits for a runner beyond the grade's budget before it stops it. The runner
#: keeps the budget itself; this margin only stops a runner that hangs, so erring long costs time
#: only when something is already broken, while erring short loses a verdict. It covers what the
#: budget does not count: a cold runner's start on a loaded machine (a one-off grade, a class
#: graded with every core busy), the final check of the grader's files and the clean-up.
RUNNER_MARGIN_S = 120.0


@dataclass
class GradeRequest:
    """One grade: what `grade`, `watch`, `grade-all`, `doctor` and the tests ask the runner for."""

    kata: str
    file: str  # absolute, not resolved: a link is refused by the runner, never swapped for its target
    device: str = DEVICES[0]
    timeout: float = CASE_TIMEOUT_S  # seconds per case
    seed: int | None = None
    lang: str = "en"
    budget: float | None = None  # seconds for the whole grade (default: from the timeout)
    select: list[str] = field(default_factory=list)  # case-name patterns (`grade -k`)

    @property
    def time_budget(self) -> float:
        """Seconds the runner gives the whole grade."""
        return self.budget or min(BUDGET_CEILING_S, 60 + BUDGET_CASES * self.timeout)

    @property
    def ceiling(self) -> float:
        """Seconds a client waits for the verdict before it stops the runner."""
        return self.time_budget + RUNNER_MARGIN_S


@dataclass
class RunnerRequest:
    """One line to the runner: `warm` (a long conversation starts: import everything, start the
    zygote), `grade` a file, `list` a suite's cases (`request.kata` and `request.lang`), or
    `processes`: the runner's own helpers (zygote, resource tracker, spare worker), by pid."""

    op: str  # warm | grade | list | processes
    request: GradeRequest | None = None


# -- runner → CLI ------------------------------------------------------------------------------


@dataclass
class CaseResult:
    name: str
    category: Category
    status: Status
    message: str = ""
    diagnosis: str | None = None  # a misconception id
    #: The call the case made, as its message begins ("RMSNorm(8).forward on ... cpu"), carried by
    #: the failure the suite raised (checks.CaseFailure, LearnerError), never read back from the
    #: message: what an exercism test shows as its code. Not in `grade --json` (docs/teachers.md).
    call: str | None = None
    #: Why it errored or which rule it broke (None: a result was judged). Not in `grade --json`.
    cause: Cause | None = None


@dataclass
class Diagnosis:
    """A named misconception and how many cases it explains."""

    id: str
    title: str
    hint: str
    cases: int


@dataclass(frozen=True)
class Verdict:
    """What a grade came to, decided once for the report, every format, the gradebook, watch and
    the store: passed, a rule of the kata broken, how many scored cases failed."""

    passed: bool
    score: int
    max_score: int
    #: Scored cases (run, not a rule) that failed or errored.
    failed: int
    #: A rule of the kata (an integrity case) failed: the grade fails whatever the score.
    rule_broken: bool

    @classmethod
    def of(cls, cases: list[CaseResult]) -> Verdict:
        ran = [c for c in cases if c.status is not Status.SKIPPED]
        scored = [c for c in ran if c.category is not Category.INTEGRITY]
        score = sum(c.status is Status.PASSED for c in scored)
        rule_broken = any(c.category is Category.INTEGRITY and c.status in (Status.FAILED, Status.ERROR) for c in ran)
        passed = bool(scored) and all(c.status is Status.PASSED for c in ran)
        return cls(passed, score, len(scored), len(scored) - score, rule_broken)

    @property
    def only_rules(self) -> bool:
        """Every scored case passed and a rule is broken: the report says so instead of a count."""
        return self.rule_broken and not self.failed


@dataclass
class GradeResult:
    """The verdict: what the runner sends (through `normkata.grading.wire`) and, with the
    verdict's fields, what `normkata grade --json` prints."""

    kata: str
    file: str
    cases: list[CaseResult]
    diagnosis: list[Diagnosis]
    seed: int
    sandbox: str
    duration_s: float
    torch: str = ""
    lang: str = "en"

    @property
    def verdict(self) -> Verdict:
        return Verdict.of(self.cases)

    @property
    def counts(self) -> dict[str, int]:
        return {s.value: sum(c.status is s for c in self.cases) for s in Status}

    @property
    def passed(self) -> bool:
        return self.verdict.passed

    @property
    def score(self) -> int:
        return self.verdict.score

    @property
    def max_score(self) -> int:
        return self.verdict.max_score

    def to_json(self) -> dict[str, Any]:
        """The `grade --json` object: the fields as the wire writes them, the verdict after the
        file (the contract's order), and each case without its call."""
        from normkata.grading.wire import to_wire

        fields = to_wire(self)
        for case in fields["cases"]:
            del case["call"], case["cause"]
        verdict = self.verdict
        head = {"kata": fields.pop("kata"), "file": fields.pop("file")}
        return {
            **head,
            "passed": verdict.passed,
            "score": verdict.score,
            "max_score": verdict.max_score,
            "counts": self.counts,
            **fields,
        }


@dataclass
class RunnerReply:
    """One line from the runner: ready (after `warm`), a result, a suite's cases, or no verdict
    (`code` 2: bad input, such as an unknown kata or a link; 3: the grader failed)."""

    ready: bool = False
    result: GradeResult | None = None
    cases: list[tuple[str, str]] = field(default_factory=list)  # (category, case name)
    pids: list[int] = field(default_factory=list)  # `processes`
    error: str = ""
    code: int = 0
