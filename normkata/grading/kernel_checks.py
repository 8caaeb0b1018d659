"""What the kernel katas' suites share: strided inputs with NaN gaps, and the bounds guard's
findings turned into failed cases (each suite passes its own no-mask and off-by-one mistakes)."""

from __future__ import annotations

import math

import pytest
import torch

from normkata.grading.checks import Harness, Misconception, fail, say
from normkata.grading.contract import StepReply


def strided(x: torch.Tensor, pad: int) -> torch.Tensor:
    """The same values as rows of a wider buffer whose gaps hold NaN (row stride d + pad)."""
    base = torch.full((x.shape[0], x.shape[1] + pad), math.nan, dtype=x.dtype)
    base[:, : x.shape[1]] = x
    return base[:, : x.shape[1]]


_WHERE = {"after": ("past the end of", "越过了末尾"), "before": ("before the start of", "早于开头")}
_KIND = {"read": ("read", "读取了"), "write": ("wrote", "写入了"), "atomic": ("updated atomically", "原子更新了")}


def check_findings(harness: Harness, reply: StepReply, call: str, on: str, d: int, *, no_mask: Misconception,
                   off_by_one: Misconception) -> None:
    """Out-of-bounds accesses the guard switched off, and outputs' sentinel margins changed."""
    block = 1 << max(d - 1, 0).bit_length()
    for finding in reply.findings:
        kind, tensor, program, lanes, where = (finding.split("|") + [""] * 5)[:5]
        if kind in _KIND:
            en, zh = _KIND[kind]
            en_where, zh_where = _WHERE.get(where, _WHERE["after"])
            message = say("{call} on {on}: program {program} {verb} {lanes} lane(s) {where} {tensor} "
                          "(the guard switched them off).",
                          "{call}，{on}：program {program} {verb_zh} {lanes} 个 lane，{where_zh} {tensor}"
                          "（已被越界检查关掉）。",
                          call=call, on=on, program=program, verb=en, verb_zh=zh, lanes=lanes, where=en_where,
                          where_zh=zh_where, tensor=tensor)  # fmt: skip
            count = int(lanes) if lanes.isdigit() else 0
            cause: Misconception | None = None
            if where == "after" and count == block - d != 1:  # every lane past the row: no mask at all
                cause = no_mask
            elif where == "after" and count == 1 and block - d != 1:  # lane n_cols itself (d = 7: either)
                cause = off_by_one
            fail(message + (" " + harness.diagnose(cause) if cause else ""))
        if kind == "margin":
            en_where, zh_where = _WHERE.get(where, _WHERE["after"])
            fail(say("{call} on {on}: {lanes} value(s) written {where} {tensor} (its sentinel margin changed).",
                     "{call}，{on}：有 {lanes} 个值写在了 {tensor} 之外（{where_zh}；哨兵值被改动）。",
                     call=call, on=on, lanes=lanes, where=en_where, where_zh=zh_where, tensor=tensor)
                 + " " + harness.diagnose(no_mask))  # fmt: skip


def skip_unless_guarded(reply: StepReply) -> None:
    """Skip the guard's own case, saying why, when the bounds guard could not check this run."""
    for finding in reply.findings:
        if finding.startswith("guard|"):
            pytest.skip(say("the bounds guard is not checking this run: {why}. Out-of-bounds accesses are not "
                            "reported (sentinel margins still are)",
                            "本次评测没有越界检查：{why}。越界访问不会被报告（哨兵值的改动仍会报告）。",
                            why=finding.split("|")[1]))  # fmt: skip
