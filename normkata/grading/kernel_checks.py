"""What the kernel katas' suites share: strided inputs with NaN gaps, and the facts the worker
sends back about a launch turned into failed cases (each suite passes its own no-mask and
off-by-one mistakes).

The runner decides here, from what the worker returned: the guard's out-of-bounds lanes, the
sentinel margins of every tensor the launcher allocated (compared with the sentinel here, not
in the worker), which kernels ran, and which output elements a kernel wrote. A launcher that
computes its outputs in plain torch, launches no kernel, or leaves part of an output unwritten
fails here whatever its numbers.
"""

from __future__ import annotations

import math

import pytest
import torch

from normkata.grading.checks import Harness, Misconception, call_on, fail, say
from normkata.grading.messages import SENTINEL, Access, GuardState, Side, StepReply


def strided(x: torch.Tensor, pad: int) -> torch.Tensor:
    """The same values as rows of a wider buffer whose gaps hold NaN (row stride d + pad)."""
    base = torch.full((x.shape[0], x.shape[1] + pad), math.nan, dtype=x.dtype)
    base[:, : x.shape[1]] = x
    return base[:, : x.shape[1]]


def under_config(reply: StepReply) -> str:
    """`, under autotune config _fwd: BLOCK=16` for a reply of one config of an autotuned launcher."""
    if not reply.config:
        return ""
    return say(", under autotune config {config}", "，autotune 配置为 {config}", config=reply.config)


#: Where a stray access or write landed, with the tensor in its place in each language.
_WHERE = {
    Side.AFTER: ("past the end of {tensor}", "越过了 {tensor} 的末尾"),
    Side.BEFORE: ("before the start of {tensor}", "在 {tensor} 的开头之前"),
}
_ACCESS = {
    Access.READ: ("read", "读取了"),
    Access.WRITE: ("wrote", "写入了"),
    Access.ATOMIC: ("accessed atomically", "原子访问了"),
}


def check_findings(
    harness: Harness,
    reply: StepReply,
    call: str,
    on: str,
    d: int,
    *,
    no_mask: Misconception,
    off_by_one: Misconception,
    missed_rows: Misconception | None = None,
    output_names: tuple[str, ...] = (),
) -> None:
    """Out-of-bounds accesses the guard switched off, outputs' sentinel margins changed, no
    kernel launched, and output elements no kernel wrote."""
    block = 1 << max(d - 1, 0).bit_length()
    for finding in reply.out_of_bounds:
        en, zh = _ACCESS[finding.access]
        en_where, zh_where = (w.format(tensor=finding.tensor) for w in _WHERE[finding.side])
        message = say(
            "{call} on {on}: program {program} {verb} {lanes} lane(s) {where} (the guard switched them off).",
            "{call}，{on}：program {program} {verb_zh} {lanes} 个 lane，{where_zh}（已被越界检查关掉）。",
            call=call,
            on=on,
            program=finding.program_text,
            verb=en,
            verb_zh=zh,
            lanes=finding.lanes,
            where=en_where,
            where_zh=zh_where,
        )
        past_the_end, count = finding.side is Side.AFTER, finding.lanes
        cause: Misconception | None = None
        if past_the_end and count == block - d != 1:  # every lane past the row: no mask at all
            cause = no_mask
        elif past_the_end and count == 1 and block - d != 1:  # lane n_cols itself (d = 7: either)
            cause = off_by_one
        fail(message + (" " + harness.diagnose(cause) if cause else ""), call=call_on(call, on))
    check_margins(harness, reply, call, on, no_mask)
    check_kernels_wrote(harness, reply, call, on, missed_rows, output_names)


def check_margins(harness: Harness, reply: StepReply, call: str, on: str, no_mask: Misconception) -> None:
    """Every tensor the launcher allocated sat between sentinels: any changed is a write outside it."""
    for margin in reply.margins:
        for side, values in ((Side.BEFORE, margin.before), (Side.AFTER, margin.after)):
            changed = int((values.double() != SENTINEL).sum())
            if changed:
                en_where, zh_where = (w.format(tensor=margin.tensor) for w in _WHERE[side])
                fail(
                    say(
                        "{call} on {on}: {k} value(s) written {where} (its sentinel margin changed).",
                        "{call}，{on}：有 {k} 个值写在了 {tensor} 之外（{where_zh}；哨兵值被改动）。",
                        call=call,
                        on=on,
                        k=changed,
                        where=en_where,
                        where_zh=zh_where,
                        tensor=margin.tensor,
                    )
                    + " "
                    + harness.diagnose(no_mask),
                    call=call_on(call, on),
                )


def check_kernels_wrote(
    harness: Harness,
    reply: StepReply,
    call: str,
    on: str,
    missed_rows: Misconception | None,
    output_names: tuple[str, ...],
) -> None:
    """The outputs are the kernels' work: a kernel ran, and wrote every element returned (or the
    launcher computed it from what a kernel wrote, as a partial-sum reduction does)."""
    watched = reply.guard is None or reply.guard.records_launches
    if watched and not reply.launches:
        fail(
            say(
                "{call} on {on}: no @triton.jit kernel ran. The kata asks for the computation in a kernel; the "
                "launcher returned values it computed without launching one.",
                "{call}，{on}：没有运行任何 @triton.jit 内核。本练习要求计算在内核中完成；启动函数返回的值"
                "不是由内核算出的。",
                call=call,
                on=on,
            ),
            call=call_on(call, on),
        )
    for position, flags in enumerate(reply.written):
        if flags is None or bool(flags.all()):
            continue
        name = output_names[position] if position < len(output_names) else say("output {n}", "输出 {n}", n=position + 1)
        missing = int((~flags).sum())
        message = say(
            "{call} on {on}: {k} of {n} value(s) of {name} were written by no kernel.",
            "{call}，{on}：{name} 的 {n} 个值中有 {k} 个没有由任何内核写入。",
            call=call,
            on=on,
            k=missing,
            n=flags.numel(),
            name=name,
        )
        rows = [int(r) for r in torch.nonzero((~flags).all(-1)).flatten()] if flags.dim() == 2 else []
        if rows and len(rows) * flags.shape[1] == missing:
            message += say(" Rows never written: {rows}.", " 从未写入的行：{rows}。", rows=rows[:8])
            if missed_rows is not None:
                message += " " + harness.diagnose(missed_rows)
        fail(message, call=call_on(call, on))


def skip_unless_guarded(reply: StepReply) -> None:
    """Skip the guard's own case, saying why, when the bounds guard could not check this run."""
    if reply.guard is not None and reply.guard.state is not GuardState.ACTIVE:
        pytest.skip(
            say(
                "the bounds guard is not checking this run: {why}. Out-of-bounds accesses are not "
                "reported (sentinel margins still are)",
                "本次评测没有越界检查：{why}。越界访问不会被报告（哨兵值的改动仍会报告）。",
                why=reply.guard.reason,
            )
        )
