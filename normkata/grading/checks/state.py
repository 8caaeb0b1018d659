"""Expectations on a module's structure: its parameters, state_dict keys and named children."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from normkata.grading.checks.context import say
from normkata.grading.checks.wording import fail
from normkata.grading.contract import dtype_name
from normkata.grading.messages import Inspection, StateLoad


def expect_parameters(call: str, info: Inspection, expected: dict[str, torch.Tensor]) -> None:
    """Exactly these parameters, with these shapes, dtypes and initial values."""
    expect_keys(call, say("parameters", "参数"), list(info.parameters), list(expected))
    for name, value in expected.items():
        got = info.parameters[name]
        want_dtype = dtype_name(value.dtype)
        if got.shape != list(value.shape) or got.dtype != want_dtype:
            fail(
                say(
                    "{call}.{name} is {dtype} of shape {shape}, expected {want_dtype} of shape {want_shape}",
                    "{call}.{name} 是形状 {shape} 的 {dtype}，应为形状 {want_shape} 的 {want_dtype}",
                    call=call,
                    name=name,
                    dtype=got.dtype,
                    shape=got.shape,
                    want_dtype=want_dtype,
                    want_shape=list(value.shape),
                )
            )
        if not got.is_parameter or not got.requires_grad:
            fail(
                say(
                    "{call}.{name} must be an nn.Parameter that requires grad",
                    "{call}.{name} 必须是 requires_grad 的 nn.Parameter",
                    call=call,
                    name=name,
                )
            )
        if not torch.equal(got.value.to(value.dtype), value):
            fail(
                say(
                    "{call}.{name} should start as {init}",
                    "{call}.{name} 的初始值应为 {init}",
                    call=call,
                    name=name,
                    init=_describe_init(value),
                )
            )


def expect_keys(call: str, what: str, got: Sequence[str], expected: Sequence[str]) -> None:
    """The same names, whatever the order; the message says which are missing or extra, and the fix."""
    missing, extra = [k for k in expected if k not in got], [k for k in got if k not in expected]
    if not missing and not extra:
        return
    parts = []
    if missing:
        parts.append(say("missing {names}", "缺少 {names}", names=_names(missing)))
    if extra:
        parts.append(say("unexpected {names}", "多出了 {names}", names=_names(extra)))
    if not expected:
        fail(
            say(
                "{call}: {what}: {parts}. Fix: there should be none.",
                "{call}：{what}：{parts}。修改：这里不应有任何名称。",
                call=call,
                what=what,
                parts="; ".join(parts),
            ),
            call=call,
        )
    fail(
        say(
            "{call}: {what}: {parts}. Fix: use exactly these names: {expected}.",
            "{call}：{what}：{parts}。修改：名称应恰好是 {expected}。",
            call=call,
            what=what,
            parts="; ".join(parts),
            expected=_names(expected),
        ),
        call=call,
    )


def load_fix(load: StateLoad, naming: str) -> str:
    """The fix for a torch state_dict that does not load: `naming` (how to name the parameters)
    when torch's keys are missing from the module or shaped otherwise; when the module only holds
    extra entries (eps registered as a buffer, say), renaming is not the fix: keeping them out is."""
    if load.unexpected or load.mismatched or not load.missing:
        return naming
    return say(
        "Fix: {names} should not be in the state_dict: keep a setting such as eps a plain attribute "
        "(self.eps = eps), not a buffer or a Parameter.",
        "修改：state_dict 中不应有 {names}：像 eps 这样的设置应是普通属性（self.eps = eps），"
        "不是 buffer 或 Parameter。",
        names=_names(load.missing),
    )


def expect_contains(call: str, what: str, got: Sequence[str], required: Sequence[str]) -> None:
    """At least these names (extra harmless children are the learner's business)."""
    missing = [k for k in required if k not in got]
    if missing:
        fail(
            say(
                "{call}: {what}: missing {names} (the instructions fix these names)",
                "{call}：{what}：缺少 {names}（这些名称由题目规定）",
                call=call,
                what=what,
                names=_names(missing),
            ),
            call=call,
        )


def _names(names: Sequence[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _describe_init(value: torch.Tensor) -> str:
    if bool((value == 1).all()):
        return say("ones", "全 1")
    if bool((value == 0).all()):
        return say("zeros", "全 0")
    return say("the given values", "给定的值")
