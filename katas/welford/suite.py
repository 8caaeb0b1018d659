"""Hidden suite for the Welford kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. The
learner's RunningStats is a plain object: each case sends updates, merges and reads as steps
of one Program and compares what `count`, `mean` and `var` return with float64 statistics of
the same rows. Inputs are drawn from the run's seed; the integer passed to `randn` / `draw`
only tells inputs apart.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import pytest
import torch

from normkata.grading.checks import (
    DEVICES,
    Harness,
    Misconception,
    call_on,
    draw,
    fail,
    misconceptions,
    once,
    randn,
    say,
)
from normkata.grading.contract import TOLERANCES, Category, Tolerance, dtype_name
from normkata.grading.messages import ProgramKind, Step, StepReply

CLS = "RunningStats"
OFFSET = 1e6
#: The variance at a mean of 1e6 in float32, where the data itself moves in steps of 0.0625:
#: at std 4, over 40 streams of 10 batches of 1 to 69 rows, correct per-row Welford measured
#: within 2.1% of the variance and batched Chan within 0.6%; E[x²] − E[x]² was off by at least 53%.
OFFSET_VAR = Tolerance(5e-2, 5e-2)


MISTAKES = misconceptions("welford")  # titles and hints: kata.yaml
NAIVE = MISTAKES["welford-naive-one-pass"]
UNWEIGHTED = MISTAKES["welford-merge-unweighted-mean"]
NO_BETWEEN = MISTAKES["welford-merge-no-between-term"]
WRONG_DIVISOR = MISTAKES["welford-wrong-divisor"]
UPDATE_ORDER = MISTAKES["welford-update-order"]
BATCH_UNBIASED = MISTAKES["welford-batch-var-unbiased"]
COUNT_NOT_MERGED = MISTAKES["welford-merge-count"]


# -- expected statistics and their suspects, in float64 -------------------------------------------


@dataclass
class Stats:
    count: int
    mean: torch.Tensor
    m2: torch.Tensor

    @classmethod
    def of(cls, rows: torch.Tensor) -> Stats:
        x = rows.double().cpu()
        mean = x.mean(0)
        return cls(x.shape[0], mean, (x - mean).pow(2).sum(0))

    def var(self, unbiased: bool) -> torch.Tensor:
        return self.m2 / (self.count - 1 if unbiased else self.count)


@dataclass
class Suspects:
    """Mistaken results, each computed here from the rows: what the learner's output may match."""

    mean: list[tuple[Misconception, torch.Tensor]] = dataclasses.field(default_factory=list)
    m2: list[tuple[Misconception, torch.Tensor]] = dataclasses.field(default_factory=list)  # var = m2 / divisor


def suspects_of_stream(batches: Sequence[torch.Tensor]) -> Suspects:
    """Updates only: batch merges done wrong, and Welford's per-row recurrence done wrong."""
    parts = [Stats.of(b) for b in batches]
    rows = torch.cat([b.double().cpu() for b in batches])
    found = Suspects()
    first_taken, from_zero = parts[0].mean, torch.zeros_like(rows[0])  # the first batch taken whole, or halved
    for part in parts[1:]:
        first_taken = (first_taken + part.mean) / 2
    for part in parts:
        from_zero = (from_zero + part.mean) / 2
    found.mean += [(UNWEIGHTED, first_taken), (UNWEIGHTED, from_zero)]
    if len(parts) > 1:
        found.m2.append((NO_BETWEEN, sum((p.m2 for p in parts), torch.zeros_like(rows[0]))))
    new_twice, old_twice = torch.zeros_like(rows[0]), torch.zeros_like(rows[0])
    mean_new, mean_old = torch.zeros_like(rows[0]), torch.zeros_like(rows[0])
    for n, x in enumerate(rows, start=1):
        mean_new = mean_new + (x - mean_new) / n
        new_twice = new_twice + (x - mean_new).pow(2)
        delta = x - mean_old
        mean_old = mean_old + delta / n
        old_twice = old_twice + delta.pow(2)
    found.m2 += [(UPDATE_ORDER, new_twice), (UPDATE_ORDER, old_twice)]
    # torch.var(batch, 0) divides by n - 1: times n, each batch adds m2 / (n - 1) too much (0/0 for one row).
    found.m2.append((BATCH_UNBIASED, Stats.of(rows).m2 + sum(p.m2 / (p.count - 1) for p in parts)))
    return found


def suspects_of_merge(a: Stats, b: Stats) -> Suspects:
    found = Suspects()
    if a.count and b.count:
        found.mean.append((UNWEIGHTED, (a.mean + b.mean) / 2))
        found.m2.append((NO_BETWEEN, a.m2 + b.m2))
    return found


# -- running a stream in the worker ------------------------------------------------------------


def reads() -> list[Step]:
    return [
        Step([], attribute="count"),
        Step([], attribute="mean"),
        Step([], method="var"),
        Step([], method="var", call_kwargs={"unbiased": True}),
    ]


def updates(batches: Sequence[torch.Tensor]) -> list[Step]:
    return [Step([b], method="update") for b in batches]


def merge(other: Sequence[Step]) -> Step:
    return Step([], method="merge", other=list(other))


def constructor(harness: Harness, features: int, dtype: torch.dtype) -> tuple[list[int], dict[str, object]]:
    kwargs: dict[str, object] = {} if dtype == torch.float32 else {"dtype": dtype_name(dtype)}
    if harness.device != "cpu":
        kwargs["device"] = harness.device
    return [features], kwargs


def run(harness: Harness, features: int, steps: Sequence[Step], dtype: torch.dtype = torch.float32) -> list[StepReply]:
    args, kwargs = constructor(harness, features, dtype)
    program = harness.program(CLS, args, kwargs, steps=steps, kind=ProgramKind.OBJECT)
    return harness.run(program).steps


def sizes_text(batches: Sequence[torch.Tensor]) -> str:
    return ", ".join(str(b.shape[0]) for b in batches)


@dataclass
class Check:
    """What one group of reads is compared with, and how it is described to the learner."""

    call: str
    on: str
    expected: Stats
    dtype: torch.dtype = torch.float32
    mean_tol: Tolerance | None = None
    var_tol: Tolerance | None = None
    #: Made only when a read is wrong: a passing file costs no mistaken recomputation.
    suspects: Callable[[], Suspects] = Suspects
    cause: Misconception | None = None  # what any wrong value here means (a precision-only case)
    count_before_merge: int | None = None


def count_of(outputs: Sequence[torch.Tensor]) -> int | float | None:
    """What `count` returned: a whole number as an int, anything else as itself (1e-4 is no count)."""
    if len(outputs) != 1 or outputs[0].numel() != 1:
        return None
    value = outputs[0].item()
    return int(value) if float(value).is_integer() else value


def check_reads(harness: Harness, replies: Sequence[StepReply], check: Check) -> None:
    """count, mean, var() and var(unbiased=True), in that order, against the expected statistics."""
    count, mean, var, var_unbiased = (reply.outputs for reply in replies)
    expected, call, on = check.expected, check.call, check.on
    got_count = count_of(count)
    if got_count != expected.count:
        message = say(
            "{call} on {on}: count is {got}, expected {expected}.",
            "{call}，{on}：count 为 {got}，应为 {expected}。",
            call=call,
            on=on,
            got=got_count if got_count is not None else "-",
            expected=expected.count,
        )
        if check.count_before_merge is not None and got_count == check.count_before_merge:
            message += " " + harness.diagnose(COUNT_NOT_MERGED)
        fail(message, call=call_on(call, on))
    tol = TOLERANCES[dtype_name(check.dtype)]
    for name, got in (("mean", mean), ("var()", var), ("var(unbiased=True)", var_unbiased)):
        if len(got) != 1:
            fail(
                say(
                    "{call} on {on}: {name} returned {n} tensors, expected one of shape ({f},)",
                    "{call}，{on}：{name} 返回了 {n} 个张量，应为一个形状为 ({f},) 的张量",
                    call=call,
                    on=on,
                    name=name,
                    n=len(got),
                    f=expected.mean.shape[0],
                ),
                call=call_on(call, on),
            )
        if got[0].dtype != check.dtype:
            fail(
                say(
                    "{call} on {on}: {name} is {got}, expected {expected} (the dtype the object was built with)",
                    "{call}，{on}：{name} 是 {got}，应为 {expected}（构造对象时给定的数据类型）",
                    call=call,
                    on=on,
                    name=name,
                    got=dtype_name(got[0].dtype),
                    expected=dtype_name(check.dtype),
                ),
                call=call_on(call, on),
            )
    if bool((var[0] < 0).any()):
        index = int(torch.argmin(var[0]).item())
        fail(
            say(
                "{call} on {on}: var() is negative ({value:.6g} for feature {index}); a variance never is.",
                "{call}，{on}：var() 为负数（特征 {index} 上为 {value:.6g}）；方差不可能为负。",
                call=call,
                on=on,
                value=var[0][index].item(),
                index=index,
            )
            + " "
            + harness.diagnose(NAIVE),
            call=call_on(call, on),
        )
    harness.assert_close(
        mean[0],
        expected.mean,
        tol=check.mean_tol or tol,
        call=call,
        on=on,
        what="mean",
        suspects=lambda: check.suspects().mean,
    )
    var_tol = check.var_tol or tol

    def cause() -> Misconception | None:
        return variance_mistake(var[0], var_unbiased[0], expected, check.suspects(), var_tol) or check.cause

    harness.assert_close(var[0], expected.var(False), tol=var_tol, call=call, on=on, what="var()", cause=cause)
    if expected.count == 1:
        if not bool(torch.isnan(var_unbiased[0]).all()):
            message = say(
                "{call} on {on}: var(unbiased=True) of one row is {got}, expected nan (0/0, as torch.var gives)",
                "{call}，{on}：一行数据的 var(unbiased=True) 为 {got}，应为 nan（0/0，与 torch.var 一致）",
                call=call,
                on=on,
                got=var_unbiased[0].tolist(),
            )
            named = cause()
            fail(message + (" " + harness.diagnose(named) if named else ""), call=call_on(call, on))
        return
    harness.assert_close(
        var_unbiased[0], expected.var(True), tol=var_tol, call=call, on=on, what="var(unbiased=True)", cause=cause
    )


def variance_mistake(
    var: torch.Tensor, var_unbiased: torch.Tensor, expected: Stats, suspects: Suspects, tol: Tolerance
) -> Misconception | None:
    """The mistake that explains var() and var(unbiased=True) together.

    Judged as a pair: on one batch, a wrong divisor and a batch M2 taken from torch.var's
    unbiased default give the same var(), and only var(unbiased=True) tells them apart.
    """
    n, biased, unbiased = expected.count, expected.var(False), expected.var(True)
    pairs = [(mistake, m2 / n, m2 / (n - 1)) for mistake, m2 in suspects.m2]
    pairs += [(WRONG_DIVISOR, unbiased, unbiased), (WRONG_DIVISOR, biased, biased), (WRONG_DIVISOR, unbiased, biased)]
    near = tol.at_least(TOLERANCES["misconception"])
    for mistake, want, want_unbiased in pairs:
        if _matches(var, want, near) and _matches(var_unbiased, want_unbiased, near):
            return mistake
    return None


def _matches(got: torch.Tensor, variant: torch.Tensor, tol: Tolerance) -> bool:
    return got.shape == variant.shape and bool(
        torch.isclose(got.double(), variant, rtol=tol.rtol, atol=tol.atol, equal_nan=True).all()
    )


def check_stream(
    harness: Harness,
    batches: Sequence[torch.Tensor],
    label: str,
    *,
    dtype: torch.dtype = torch.float32,
    every: bool = True,
    mean_tol: Tolerance | None = None,
    var_tol: Tolerance | None = None,
    cause: Misconception | None = None,
) -> None:
    """Update with each batch in turn, reading the statistics after every update (or the last)."""
    features = batches[0].shape[1]
    steps: list[Step] = []
    for k, batch in enumerate(batches):
        steps.append(Step([batch], method="update"))
        if every or k == len(batches) - 1:
            steps += reads()
    replies = [r for r, s in zip(run(harness, features, steps, dtype), steps, strict=True) if s.method != "update"]
    args, kwargs = constructor(harness, features, dtype)
    on = say(
        "{label} batches of sizes ({sizes})",
        "{label} 的 batch，大小依次为 ({sizes})",
        label=label,
        sizes=sizes_text(batches),
    )
    points = range(len(batches)) if every else [len(batches) - 1]
    for group, k in enumerate(points):
        call = say(
            "{cls}({args}) after update {k} of {total}",
            "{cls}({args}) 在第 {k}/{total} 次 update 之后",
            cls=CLS,
            args=_args(args, kwargs),
            k=k + 1,
            total=len(batches),
        )
        seen = batches[: k + 1]
        check = Check(
            call,
            on,
            Stats.of(torch.cat(list(seen))),
            dtype,
            mean_tol,
            var_tol,
            once(partial(suspects_of_stream, seen)),
            cause,
        )
        check_reads(harness, replies[4 * group : 4 * group + 4], check)


def _args(args: Sequence[object], kwargs: dict[str, object]) -> str:
    return ", ".join([*map(str, args), *(f"{k}={v}" for k, v in kwargs.items())])


def drifting_batches(key: int, features: int, sizes: Sequence[int], *, scale: float = 2.0) -> list[torch.Tensor]:
    """Batches whose per-feature means move from batch to batch (so merges must weigh them)."""
    return [
        randn((n, features), key + 10 * k, scale=scale) + randn((features,), key + 10 * k + 1, scale=3.0)
        for k, n in enumerate(sizes)
    ]


def drawn_sizes(key: int, count: int, high: int) -> list[int]:
    sizes = [draw(key + k, 1, high) for k in range(count)]
    sizes[draw(key + count, 0, count - 1)] = 1  # a one-row batch somewhere in every stream
    return sizes


def check_merge(
    harness: Harness,
    a: Sequence[torch.Tensor],
    b: Sequence[torch.Tensor],
    label: str,
    *,
    then: Sequence[torch.Tensor] = (),
    dtype: torch.dtype = torch.float32,
    mean_tol: Tolerance | None = None,
    var_tol: Tolerance | None = None,
    cause: Misconception | None = None,
) -> None:
    """a.update(each of a); a.merge(b built from b's batches); a.update(each of then); read."""
    features = (a or b)[0].shape[1]
    steps = [*updates(a), merge(updates(b)), *updates(then), *reads()]
    replies = run(harness, features, steps, dtype)[-4:]
    args, kwargs = constructor(harness, features, dtype)
    built = f"{CLS}({_args(args, kwargs)})"
    call = say(
        "a = {built}; a.update(...) ×{na}; a.merge(b) with b.update(...) ×{nb}",
        "a = {built}；a.update(...) ×{na}；a.merge(b)，其中 b.update(...) ×{nb}",
        built=built,
        na=len(a),
        nb=len(b),
    )
    if then:
        call += say("; then a.update(...) ×{n}", "；然后 a.update(...) ×{n}", n=len(then))
    on = say(
        "{label}: a's batches ({a}), b's ({b})",
        "{label}：a 的 batch ({a})，b 的 batch ({b})",
        label=label,
        a=sizes_text(a) or "-",
        b=sizes_text(b) or "-",
    )
    if then:
        on += say(", then ({t})", "，随后 ({t})", t=sizes_text(then))
    rows_a, rows_b = torch.cat(list(a)) if a else None, torch.cat(list(b)) if b else None
    all_rows = torch.cat([r for r in (rows_a, rows_b, *then) if r is not None])
    stats_a, stats_b = (Stats.of(r) if r is not None else None for r in (rows_a, rows_b))
    suspects = once(partial(suspects_of_merge, stats_a, stats_b)) if stats_a and stats_b and not then else Suspects
    count_before = stats_a.count if stats_a and stats_b and not then else None
    check = Check(call, on, Stats.of(all_rows), dtype, mean_tol, var_tol, suspects, cause, count_before)
    check_reads(harness, replies, check)


# -- state -------------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
def test_count(harness: Harness) -> None:
    features = draw(1, 1, 6)
    sizes = [draw(2 + k, 1, 9) for k in range(4)]
    batches = [randn((n, features), 10 + k) for k, n in enumerate(sizes)]
    steps = [Step([], attribute="count")]
    for batch in batches:
        steps += [Step([batch], method="update"), Step([], attribute="count")]
    steps += [merge(updates(batches[:2])), Step([], attribute="count")]
    replies = [r for r, s in zip(run(harness, features, steps), steps, strict=True) if s.attribute == "count"]
    expected = [0, *torch.tensor(sizes).cumsum(0).tolist(), sum(sizes) + sizes[0] + sizes[1]]
    got = [count_of(r.outputs) for r in replies]
    if got != expected:
        message = say(
            "{cls}({f}): count read fresh, after updates of {sizes} rows and after merging an object "
            "of {m} rows was {got}, expected {expected}.",
            "{cls}({f})：新建时、依次 update {sizes} 行之后、再并入一个 {m} 行的对象之后，"
            "count 依次为 {got}，应为 {expected}。",
            cls=CLS,
            f=features,
            sizes=sizes,
            m=sizes[0] + sizes[1],
            got=got,
            expected=expected,
        )
        if got[:-1] == expected[:-1] and got[-1] == expected[-2]:
            message += " " + harness.diagnose(COUNT_NOT_MERGED)
        fail(message, call=f"{CLS}({features})")


@pytest.mark.category(Category.STATE)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_dtype_of_results(harness: Harness, dtype: torch.dtype) -> None:
    batches = [randn((5, 3), 20).to(dtype), randn((2, 3), 21).to(dtype)]
    check_stream(harness, batches, "N(0,1)", dtype=dtype, every=False)


# -- statistics in fp32 ------------------------------------------------------------------------


@pytest.mark.category(Category.FORWARD)
def test_one_batch(harness: Harness) -> None:
    shape = (draw(30, 2, 40), draw(31, 1, 9))
    check_stream(harness, [randn(shape, 32, scale=2.0, shift=0.5)], "2·N(0,1)+0.5")


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("k", range(3))
def test_drawn_streams(harness: Harness, k: int, device: str) -> None:
    features = draw(40 + k, 1, 9)
    sizes = drawn_sizes(100 * k + 200, draw(45 + k, 5, 10), 40)
    check_stream(harness, drifting_batches(1000 * k + 3000, features, sizes), "2·N(0,1)+3·N(0,1)")


@pytest.mark.category(Category.SHAPES)
def test_single_rows(harness: Harness) -> None:
    rows = randn((draw(50, 12, 30), 4), 51, scale=2.0, shift=1.5)
    check_stream(harness, list(rows.split(1)), say("one-row", "单行"), every=False)


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize("features", [1, 17])
def test_num_features(harness: Harness, features: int) -> None:
    check_stream(harness, drifting_batches(60 + features, features, [3, 1, 8]), "2·N(0,1)+3·N(0,1)")


# -- merging -----------------------------------------------------------------------------------


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
def test_merge_unequal_groups(harness: Harness, device: str) -> None:
    features = draw(70, 1, 6)
    small = [randn((draw(71, 2, 6), features), 72, shift=4.0)]
    large = drifting_batches(73, features, [draw(74 + k, 10, 40) for k in range(3)], scale=3.0)
    check_merge(
        harness,
        small,
        large,
        say("a ≈ N(4,1), b ≈ 3·N(0,1) with shifting means", "a ≈ N(4,1)，b ≈ 3·N(0,1) 且均值漂移"),
    )
    check_merge(
        harness,
        large,
        small,
        say("a ≈ 3·N(0,1) with shifting means, b ≈ N(4,1)", "a ≈ 3·N(0,1) 且均值漂移，b ≈ N(4,1)"),
    )


@pytest.mark.category(Category.FORWARD)
def test_merge_then_update(harness: Harness) -> None:
    a = drifting_batches(80, 3, [draw(81, 1, 20), 4])
    b = drifting_batches(82, 3, [draw(83, 5, 30)])
    then = drifting_batches(84, 3, [draw(85, 1, 20), 1, 6])
    check_merge(harness, a, b, "2·N(0,1)+3·N(0,1)", then=then)


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("which", ["fresh_into_used", "used_into_fresh"])
def test_merge_with_fresh(harness: Harness, which: str) -> None:
    batches = drifting_batches(90, 4, [draw(91, 2, 20), draw(92, 1, 20)])
    a, b = (batches, []) if which == "fresh_into_used" else ([], batches)
    check_merge(harness, a, b, "2·N(0,1)+3·N(0,1)")


@pytest.mark.category(Category.STABILITY)
def test_one_row(harness: Harness) -> None:
    check_stream(harness, [randn((1, 5), 95, scale=3.0)], "3·N(0,1)")


# -- a mean of 1e6 ---------------------------------------------------------------------------


def offset_batches(key: int, features: int, sizes: Sequence[int], dtype: torch.dtype) -> list[torch.Tensor]:
    """1e6 + 4·N(0,1), rounded to `dtype`; subtracting 1e6 again is exact."""
    return [(randn((n, features), key + k, scale=4.0).double() + OFFSET).to(dtype) for k, n in enumerate(sizes)]


def moved_near_0() -> str:
    return say("the same rows moved near 0 ((1e6 + 4·N(0,1)) − 1e6)", "同样的行移到 0 附近（(1e6 + 4·N(0,1)) − 1e6）")


def at_small_mean(batches: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    return [b - OFFSET for b in batches]


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("k", range(2))
def test_mean_1e6(harness: Harness, k: int, device: str) -> None:
    """The same rows, first moved to a mean near 0: a result right there and wrong here is precision."""
    features = draw(110 + k, 1, 8)
    batches = offset_batches(1100 + 100 * k, features, drawn_sizes(1300 + 100 * k, 8, 40), torch.float32)
    check_stream(harness, at_small_mean(batches), moved_near_0(), every=False)
    check_stream(
        harness, batches, "1e6 + 4·N(0,1)", every=False, mean_tol=TOLERANCES["float32"], var_tol=OFFSET_VAR, cause=NAIVE
    )


@pytest.mark.category(Category.STABILITY)
def test_merge_at_1e6(harness: Harness) -> None:
    features = draw(120, 1, 6)
    a = offset_batches(121, features, [draw(122, 5, 40), 7], torch.float32)
    b = [x + 8.0 for x in offset_batches(123, features, [draw(124, 20, 60)], torch.float32)]  # mean 1e6 + 8
    check_merge(
        harness,
        at_small_mean(a),
        at_small_mean(b),
        say(
            "the same rows moved near 0 ((1e6 + 4·N(0,1)) − 1e6, (1e6 + 8 + 4·N(0,1)) − 1e6)",
            "同样的行移到 0 附近（(1e6 + 4·N(0,1)) − 1e6 与 (1e6 + 8 + 4·N(0,1)) − 1e6）",
        ),
    )
    label = say("1e6 + 4·N(0,1), 1e6 + 8 + 4·N(0,1)", "1e6 + 4·N(0,1) 与 1e6 + 8 + 4·N(0,1)")
    check_merge(harness, a, b, label, mean_tol=TOLERANCES["float32"], var_tol=OFFSET_VAR, cause=NAIVE)


@pytest.mark.category(Category.STABILITY)
def test_constant_features_at_1e6(harness: Harness) -> None:
    """Feature 0 is exactly 1e6 + 0.5, feature 1 moves by single float32 steps, feature 2 is 4·N(0,1)."""
    sizes = drawn_sizes(130, 6, 30)
    batches = offset_batches(140, 3, sizes, torch.float32)
    for k, batch in enumerate(batches):
        batch[:, 0] = OFFSET + 0.5
        batch[:, 1] = OFFSET + 0.0625 * randn((batch.shape[0],), 150 + k).round().clamp(-1, 1)
    label = say("constant, nearly constant and 1e6 + 4·N(0,1) features:", "常数、近似常数与 1e6 + 4·N(0,1) 特征：")
    check_stream(harness, batches, label, every=False, mean_tol=TOLERANCES["float32"], var_tol=OFFSET_VAR, cause=NAIVE)


@pytest.mark.category(Category.STABILITY)
def test_float64_at_1e6(harness: Harness) -> None:
    """In float64 the one-pass formula still loses about 1e-4 at a mean of 1e6; the tolerance is 1e-10."""
    batches = offset_batches(160, 3, drawn_sizes(170, 6, 40), torch.float64)
    check_stream(harness, at_small_mean(batches), moved_near_0(), dtype=torch.float64, every=False)
    check_stream(harness, batches, "1e6 + 4·N(0,1)", dtype=torch.float64, every=False, cause=NAIVE)
