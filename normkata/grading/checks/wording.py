"""How the checks talk to the learner: failures, misconceptions, calls, errors and case names.

A failure message says what was called, where, what went wrong, in the run's language; a
known mistake is a `Misconception`, worded in its kata's kata.yaml and named by id.
"""

from __future__ import annotations

import builtins
import functools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from normkata.content.misconception import Misconception
from normkata.grading.checks.context import RUN, say
from normkata.grading.contract import Cause
from normkata.grading.messages import Failure


class CaseFailure(AssertionError):
    """The learner's code ran but gave a wrong result: a failed case, explained. `call`: the call
    the case made, as the message begins with it (`CaseResult.call`); None where it names none."""

    def __init__(self, message: str, call: str | None = None) -> None:
        super().__init__(message)
        self.call = call


def fail(message: str, *, call: str | None = None) -> NoReturn:
    """Fail the current case with a message for the learner, which begins with `call` if given."""
    raise CaseFailure(message, call)


class LearnerError(Exception):
    """The learner's code raised, crashed or hung: an errored case (`call` as in CaseFailure)."""

    def __init__(self, message: str, cause: Cause = Cause.RAISED, *, call: str | None = None) -> None:
        super().__init__(message)
        self.cause = cause
        self.call = call


def call_on(call: str, on: str) -> str:
    """A call and its input as a failure begins with them: `RMSNorm(8).forward on N(0,1) input ...`."""
    return say("{call} on {on}", "{call}，{on}", call=call, on=on)


def misconceptions(kata_id: str) -> dict[str, Misconception]:
    """The mistakes kata `kata_id`'s kata.yaml words, by id: a suite names them by id and keeps
    only how to recognise them (the runner grades a copy of the suite, so not from `__file__`)."""
    from normkata.paths import katas_dir

    meta = katas_dir() / kata_id / "kata.yaml"
    return dict(_misconceptions(kata_id, meta, meta.stat().st_mtime_ns))


@functools.lru_cache(maxsize=32)
def _misconceptions(kata_id: str, meta: Path, mtime_ns: int) -> dict[str, Misconception]:
    """Read once per version of the file: a warm runner re-grades without re-reading it."""
    from normkata.content.katas import read_kata

    return {m.id: m for m in read_kata(kata_id, meta.parent.parent).misconceptions}


def call_text(
    cls: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None, method: str | None = "forward"
) -> str:
    """How a call reads to the learner: `RMSNorm(8, eps=1e-05).forward`."""
    parts = [value_text(a) for a in args] + [f"{k}={value_text(v)}" for k, v in (kwargs or {}).items()]
    return f"{cls}({', '.join(parts)})" + (f".{method}" if method else "")


def value_text(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(value_text(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)


_STAGES = {
    "build": ("while building the module", "构建模块时"),
    "load_state": ("while loading weights", "加载权重时"),
    "forward": ("in forward", "在 forward 中"),
    "launcher": ("in the launcher", "在启动函数中"),
    "kernel": ("in the kernel", "在内核中"),
    "backward": ("in backward", "在反向传播中"),
    "inspect": ("while its parameters and buffers were read", "读取其参数和 buffer 时"),
    "import": ("while importing", "导入时"),
    "run": ("", ""),
}
_BROADCAST = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")
_NO_ATTRIBUTE = re.compile(r"object has no attribute '(\w+)'")


def exception_name(error: str, builtin: str) -> str:
    """How the learner's exception is named: its class's name, and where that is a built-in
    exception's name its class is not (an `except ValueError` would not catch it), that too."""
    if builtin and error != builtin and isinstance(getattr(builtins, error, None), type):
        return say(
            "{error} (a class of your own, not Python's {error})",
            "{error}（你自己定义的类，不是 Python 的 {error}）",
            error=error,
        )
    return error


def explain(failure: Failure, call: str) -> str:
    """The learner's exception as a sentence: what was called, where, what went wrong."""
    return explanation(failure, call)[1]


def explanation(failure: Failure, call: str) -> tuple[str, str]:
    """(the call as the sentence begins with it, the sentence) for the learner's exception."""
    en_stage, zh_stage = _STAGES.get(failure.stage, ("", ""))
    if failure.stage.startswith("method:"):  # a plain object's method: `in merge`
        method = failure.stage.removeprefix("method:")
        en_stage, zh_stage = f"in {method}", f"在 {method} 中"
    # `path:line`, the form editors and terminals jump to.
    where = ""
    if failure.line:
        where = say(" (at {file}:{n})", "（位置 {file}:{n}）", file=RUN.file or "your file", n=failure.line)
    message = " ".join(failure.message.split())
    stage = say(en_stage, zh_stage)
    if failure.error == "NotImplementedError":
        return call, say(
            "{call}: not implemented yet (NotImplementedError {stage}){where}",
            "{call}：尚未实现（{stage}抛出 NotImplementedError）{where}",
            call=call,
            stage=stage,
            where=where,
        )
    at = f"{call} {stage}"
    if failure.error == "TritonUnsupported":  # the grade's own limit, said as it is (normkata.grading.worker.kernels)
        return at, say(
            "{call} {stage}: {message}{where}",
            "{call} {stage}：{message}{where}",
            call=call,
            stage=stage,
            message=message,
            where=where,
        )
    if failure.error == "Forbidden":
        return at, say(
            "{call} {stage}: {message}",
            "{call} {stage}：调用了本练习禁止的 torch 实现，请自己写出计算",
            call=call,
            stage=stage,
            message=message,
        )
    if failure.stage not in ("launcher", "kernel") and (match := _NO_ATTRIBUTE.search(message)):
        return at, say(
            "{call} {stage}: the module has no attribute `{name}`{where}",
            "{call} {stage}：模块没有属性 `{name}`{where}",
            call=call,
            stage=stage,
            name=match[1],
            where=where,
        )
    if match := _BROADCAST.search(message):
        return at, say(
            "{call} {stage}: shapes do not broadcast (a size-{a} dimension met a size-{b} one){where}",
            "{call} {stage}：形状无法广播（大小为 {a} 的维度遇到了大小为 {b} 的维度）{where}",
            call=call,
            stage=stage,
            a=match[1],
            b=match[2],
            where=where,
        )
    raised = say(
        "{call} {stage} raised {error}",
        "{call} {stage}抛出 {error}",
        call=call,
        stage=stage,
        error=exception_name(failure.error, failure.builtin),
    )
    return raised, say(
        "{raised}: {message}{where}", "{raised}：{message}{where}", raised=raised, message=message, where=where
    )


def is_broadcast_error(failure: Failure) -> bool:
    return failure.stage == "forward" and bool(_BROADCAST.search(failure.message))


def broadcast_sizes(failure: Failure) -> tuple[int, int] | None:
    """The two sizes a forward's broadcast error names (tensor a's, tensor b's), if it is one."""
    match = _BROADCAST.search(failure.message) if failure.stage == "forward" else None
    return (int(match[1]), int(match[2])) if match else None
