"""The grading contract as code: the public result, what asks for it, and the tolerances.

    normkata grade ──(GradeRequest / GradeResult as JSON over a pipe)── runner

The CLI asks the runner for a grade (`GradeRequest`, inside a `RunnerRequest`) and reads the
verdict as a `GradeResult` (inside a `RunnerReply`), flattened by `normkata.grading.wire`;
`grade --json`, the report, every format and the record read those objects, never loose dicts.
Categories are an enum that every suite is checked against when it is collected; the tolerance
table is the one place a tolerance is written down (docs/grading.md explains each). What the
runner and the worker say to each other is normkata.grading.messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
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


#: The causes that stop a grade before the suite runs: the file never imported (or lacked its class).
STOPPED_AT_IMPORT = (Cause.SYNTAX, Cause.IMPORT, Cause.MISSING_CLASS)


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
    #: What the record keeps and every reader keys by: the case's pytest name without `test_`
    #: (`forward[2x5x8-cpu]`), or the grader's own case (`import`, `forbidden_api`). Titles come
    #: from it (normkata.content.suite_names), in whatever language a screen is read.
    id: str
    #: Its title in the grade's language (`forward [2x5x8-cpu]`, `前向 [2x5x8-cpu]`), for the
    #: report, the formats and `grade --json`; two cases may share one, never an id.
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


#: No weights: every scored case is worth one point (the default everywhere).
ONE_POINT_EACH: Mapping[Category, int] = MappingProxyType({})


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
    def points(self) -> int:
        """What the grade earns: the score, or 0 when a rule is broken (copying F.rms_norm must not
        earn the cases it passed). Every score a teacher or a platform reads is this one; the raw
        case count stays `score`."""
        return 0 if self.rule_broken else self.score

    @classmethod
    def weighted(cls, cases: list[CaseResult], weights: Mapping[Category, int]) -> tuple[int, int]:
        """(points earned, points possible) when each scored case of a category is worth
        `weights[category]` points (1 for a category not named): what a teacher's `--weights`
        makes of a grade; 0 earned when a rule is broken, as `points`."""
        verdict = cls.of(cases)
        scored = [c for c in cases if c.status is not Status.SKIPPED and c.category is not Category.INTEGRITY]
        possible = sum(weights.get(c.category, 1) for c in scored)
        earned = sum(weights.get(c.category, 1) for c in scored if c.status is Status.PASSED)
        return (0 if verdict.rule_broken else earned), possible

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
    def never_imported(self) -> bool:
        """Whether the file never imported (or lacked its class): the suite's cases never ran."""
        return any(c.cause in STOPPED_AT_IMPORT and c.status in (Status.FAILED, Status.ERROR) for c in self.cases)

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
