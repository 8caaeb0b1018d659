"""What hidden suites use: run the learner's code, compare with a float64 reference, explain.

Runs in the trusted runner. Failure messages say what was called, on what input, what came
back and what was expected, in the learner's language, and name a known misconception when the
learner's output matches the reference run with that mistake. Inputs are drawn from the run's
seed (`configure`), so a suite cannot be memorised and `--seed` reproduces a run.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import torch

from normkata.grading.contract import (
    PERTURBATION_DRAWS,
    TOLERANCES,
    Failure,
    Inspection,
    Program,
    RunReply,
    Step,
    StepReply,
    Tolerance,
    achievable,
    dtype_name,
    tolerance_for,
)
from normkata.grading.proxy import Submission, SubmissionError, TimeBudgetUsed


@dataclass
class RunContext:
    seed: int = 0
    lang: str = "en"
    file: str = ""  # the learner's file, as messages point into it (`rmsnorm.py:12`)


_RUN = RunContext()


def configure(seed: int, lang: str, file: str = "") -> None:
    """Set the run's seed, language and learner file before the suite is collected."""
    _RUN.seed, _RUN.lang, _RUN.file = seed, lang, file


def say(en: str, zh: str, **values: Any) -> str:
    """A message for the learner, in the run's language."""
    return (zh if _RUN.lang == "zh" else en).format(**values)


def lang() -> str:
    return _RUN.lang


class CaseFailure(AssertionError):
    """The learner's code ran but gave a wrong result: a failed case, explained."""


def fail(message: str) -> NoReturn:
    """Fail the current case with a message for the learner."""
    raise CaseFailure(message)


class LearnerError(Exception):
    """The learner's code raised, crashed or hung: an errored case."""


@dataclass(frozen=True)
class Misconception:
    id: str
    title_en: str
    title_zh: str
    hint_en: str
    hint_zh: str

    def title(self, lang: str) -> str:
        return self.title_zh if lang == "zh" else self.title_en

    def hint(self, lang: str) -> str:
        return self.hint_zh if lang == "zh" else self.hint_en


def misconceptions(kata_id: str) -> dict[str, Misconception]:
    """The mistakes kata `kata_id`'s kata.yaml words, by id: a suite names them by id and keeps
    only how to recognise them (the runner grades a copy of the suite, so not from `__file__`)."""
    from normkata.katas import read_kata

    return {m.id: Misconception(m.id, m.title.en, m.title.zh, m.hint.en, m.hint.zh)
            for m in read_kata(kata_id).misconceptions}  # fmt: skip


#: Something the learner's code may raise, and the misconception it reveals.
ErrorSuspect = tuple[Misconception, Callable[[Failure], bool]]

STATEFUL = Misconception(
    "stateful-forward",
    "forward depends on earlier calls",
    "forward 的结果依赖之前的调用",
    "Compute everything from this call's input: do not cache statistics or outputs between calls.",
    "每次都只用本次调用的输入计算：不要在多次调用之间缓存统计量或输出。",
)


# -- seeded inputs -----------------------------------------------------------------------------


def seeded(key: int) -> torch.Generator:
    """A generator for one input of the suite: the run's seed and the input's own key."""
    return torch.Generator().manual_seed((_RUN.seed * 1_000_003 + key) % (2**63))


def randn(shape: Sequence[int], key: int, *, scale: float = 1.0, shift: float = 0.0) -> torch.Tensor:
    return torch.randn(*shape, generator=seeded(key)) * scale + shift


def draw(key: int, low: int, high: int) -> int:
    """A whole number in [low, high], drawn from the run's seed."""
    return int(torch.randint(low, high + 1, (1,), generator=seeded(key)).item())


# -- what a precision can deliver on an input --------------------------------------------------


def rounding_unit(dtype: torch.dtype) -> float:
    """The relative rounding of the precision correct code computes in for inputs of `dtype`:
    float64's for float64, float32's otherwise (half-precision inputs are computed in float32)."""
    return 2.0**-53 if dtype == torch.float64 else 2.0**-24


def _max_error(got: torch.Tensor, truth: torch.Tensor) -> float:
    """The largest finite |got − truth| (a non-finite truth or result widens nothing)."""
    if tuple(got.shape) != tuple(truth.shape) or got.numel() == 0:
        return 0.0
    error = (got.detach().double().cpu() - truth.detach().double().cpu()).abs()
    error = error[torch.isfinite(error)]
    return float(error.max()) if error.numel() else 0.0


def own_errors(
    truth: Callable[[list[torch.Tensor]], Sequence[torch.Tensor]],
    inputs: Sequence[torch.Tensor],
    expected: Sequence[torch.Tensor],
    in_dtype: Sequence[torch.Tensor] = (),
) -> list[float]:
    """Per expected tensor, how far the case's own precision lands from it on these inputs
    (contract.ACHIEVABLE_FACTOR): the error of `in_dtype` (the truth computed in the case's dtype,
    where the suite gives it) and of `truth` (float64) on the inputs moved by one rounding."""
    worst = [_max_error(own, want) if own is not None else 0.0
             for own, want in zip([*in_dtype, *[None] * len(expected)], expected, strict=False)]  # fmt: skip
    unit = rounding_unit(inputs[0].dtype)
    generator = torch.Generator().manual_seed(_RUN.seed)
    for _ in range(PERTURBATION_DRAWS):
        moved = [t.detach().double().cpu() * (1 + unit * (torch.rand(t.shape, generator=generator,
                                                                     dtype=torch.float64) * 2 - 1))
                 if t.is_floating_point() else t for t in inputs]  # fmt: skip
        for index, (got, want) in enumerate(zip(truth(moved), expected, strict=True)):
            worst[index] = max(worst[index], _max_error(got, want))
    return worst


def shape_id(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape))


@dataclass
class Input:
    """A tensor with the words that describe it to the learner."""

    tensor: torch.Tensor
    label: str

    def describe(self, device: str = "cpu") -> str:
        shape, dtype = tuple(self.tensor.shape), dtype_name(self.tensor.dtype)
        return say(
            "{label} input of shape {shape}, {dtype} on {device}",
            "{label} 输入，形状 {shape}，{dtype}，设备 {device}",
            label=self.label, shape=shape, dtype=dtype, device=device,
        )  # fmt: skip


# -- talking about calls and errors ------------------------------------------------------------


def call_text(cls: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None, method: str | None = "forward"
              ) -> str:  # fmt: skip
    """How a call reads to the learner: `RMSNorm(8, eps=1e-05).forward`."""
    parts = [_value(a) for a in args] + [f"{k}={_value(v)}" for k, v in (kwargs or {}).items()]
    return f"{cls}({', '.join(parts)})" + (f".{method}" if method else "")


def _value(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)


_STAGES = {
    "build": ("while building the module", "构建模块时"),
    "load_state": ("while loading weights", "加载权重时"),
    "forward": ("in forward", "在 forward 中"),
    "backward": ("in backward", "在反向传播中"),
    "import": ("while importing", "导入时"),
    "run": ("", ""),
}
_BROADCAST = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")
_NO_ATTRIBUTE = re.compile(r"object has no attribute '(\w+)'")


def explain(failure: Failure, call: str) -> str:
    """The learner's exception as a sentence: what was called, where, what went wrong."""
    en_stage, zh_stage = _STAGES.get(failure.stage, ("", ""))
    if failure.stage.startswith("method:"):  # a plain object's method: `in merge`
        method = failure.stage.removeprefix("method:")
        en_stage, zh_stage = f"in {method}", f"在 {method} 中"
    # `path:line`, the form editors and terminals jump to.
    where = ""
    if failure.line:
        where = say(" (at {file}:{n})", "（位置 {file}:{n}）", file=_RUN.file or "your file", n=failure.line)
    message = " ".join(failure.message.split())
    stage = say(en_stage, zh_stage)
    if failure.error == "NotImplementedError":
        return say("{call}: not implemented yet (NotImplementedError {stage}){where}",
                   "{call}：尚未实现（{stage}抛出 NotImplementedError）{where}", call=call, stage=stage, where=where)
    if failure.error == "Forbidden":
        return say("{call} {stage}: {message}", "{call} {stage}：调用了本练习禁止的 torch 实现，请自己写出计算",
                   call=call, stage=stage, message=message)  # fmt: skip
    if match := _NO_ATTRIBUTE.search(message):
        return say("{call} {stage}: the module has no attribute `{name}`{where}",
                   "{call} {stage}：模块没有属性 `{name}`{where}", call=call, stage=stage, name=match[1], where=where)
    if match := _BROADCAST.search(message):
        return say(
            "{call} {stage}: shapes do not broadcast (a size-{a} dimension met a size-{b} one){where}",
            "{call} {stage}：形状无法广播（大小为 {a} 的维度遇到了大小为 {b} 的维度）{where}",
            call=call, stage=stage, a=match[1], b=match[2], where=where,
        )  # fmt: skip
    return say("{call} {stage} raised {error}: {message}{where}", "{call} {stage}抛出 {error}：{message}{where}",
               call=call, stage=stage, error=failure.error, message=message, where=where)  # fmt: skip


def is_broadcast_error(failure: Failure) -> bool:
    return failure.stage == "forward" and bool(_BROADCAST.search(failure.message))


# -- the harness -------------------------------------------------------------------------------


@dataclass
class Harness:
    """One grading session's view of the submission and the diagnoses."""

    submission: Submission
    device: str
    record: Callable[[Misconception], None]
    structure: list[str] = field(default_factory=list)

    def run(self, program: Program, error_suspects: Sequence[ErrorSuspect] = ()) -> RunReply:
        try:
            reply = self.submission.run(program)
        except TimeBudgetUsed:
            raise
        except SubmissionError as exc:
            call = call_text(program.cls, program.args, program.kwargs, None)
            raise LearnerError(f"{call}: {exc.text(_RUN.lang)}") from None
        if not reply.ok:
            failure = reply.failure or Failure("Error", "", 0, "run")
            message = explain(failure, call_text(program.cls, program.args, program.kwargs, None))
            for misconception, matches in error_suspects:
                if matches(failure):
                    message += " " + self.diagnose(misconception)
                    break
            raise LearnerError(message)
        return reply

    def program(
        self,
        cls: str,
        args: Sequence[Any],
        kwargs: dict[str, Any] | None = None,
        *,
        state: dict[str, torch.Tensor] | None = None,
        dtype: torch.dtype | None = None,
        mode: str = "train",
        steps: Sequence[Step] = (),
        inspect: bool = False,
    ) -> Program:
        return Program(
            cls=cls,
            args=list(args),
            kwargs=dict(kwargs or {}),
            state=state,
            device=self.device,
            dtype=dtype_name(dtype) if dtype is not None else None,
            mode=mode,
            steps=list(steps),
            inspect=inspect,
            seed=_RUN.seed,
        )

    def inspect(self, cls: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None,
                dtype: torch.dtype | None = None) -> Inspection:  # fmt: skip
        reply = self.run(self.program(cls, args, kwargs, inspect=True, dtype=dtype))
        assert reply.inspect is not None
        return reply.inspect

    # -- whole cases ---------------------------------------------------------------------------

    def forward_case(
        self,
        cls: str,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        x: Input,
        *,
        expected: Callable[[torch.Tensor, dict[str, torch.Tensor]], torch.Tensor],
        suspects: Callable[[torch.Tensor, dict[str, torch.Tensor]], list[tuple[Misconception, torch.Tensor]]]
        | None = None,
        error_suspects: Sequence[ErrorSuspect] = (),
        state: dict[str, torch.Tensor] | None = None,
        dtype: torch.dtype | None = None,
        mode: str = "train",
        tol: Tolerance | None = None,
        in_dtype: Callable[[torch.Tensor, dict[str, torch.Tensor]], torch.Tensor] | None = None,
    ) -> torch.Tensor:
        """Run forward on the learner's module and compare with `expected(x, state as quantised)`.

        In half precision the output must also come back in the input's dtype (the learner's
        parameters are moved to that dtype, so they share it). The tolerance is never tighter
        than what the case's precision delivers on this input (`own_errors`; `in_dtype`: the truth
        computed in the input's dtype, torch's own kernel, where the suite has one).
        """
        program = self.program(cls, args, kwargs, state=state, dtype=dtype, mode=mode, steps=[Step([x.tensor])])
        got = self.run(program, error_suspects).steps[0].output
        quantised = {k: v.to(dtype) if dtype and v.is_floating_point() else v for k, v in (state or {}).items()}
        call, on = call_text(cls, args, kwargs), x.describe(self.device)
        if dtype in (torch.float16, torch.bfloat16):
            self.assert_dtype(got, dtype, call=call, on=on)
        want = expected(x.tensor, quantised)
        with torch.no_grad():
            own = [in_dtype(x.tensor, quantised)] if in_dtype and x.tensor.dtype == torch.float32 else []
            error = own_errors(lambda moved: [expected(moved[0], quantised)], [x.tensor], [want], own)[0]
        self.assert_close(
            got,
            want,
            tol=achievable(tol or tolerance_for(x.tensor.dtype), error),
            call=call,
            on=on,
            suspects=suspects(x.tensor, quantised) if suspects else (),
        )
        return got

    def repeated_calls_case(
        self,
        cls: str,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        inputs: Sequence[Input],
        *,
        expected: Callable[[torch.Tensor], torch.Tensor],
        state: dict[str, torch.Tensor] | None = None,
        mode: str = "train",
        suspects: Callable[[torch.Tensor], list[tuple[Misconception, torch.Tensor]]] | None = None,
    ) -> None:
        """One module called on each input in turn: every output must match its own reference.

        Each input is first checked on a fresh module, so that a mistake in the computation is
        reported as itself (named by `suspects`, as the forward cases name it); only a module
        that is right when fresh and wrong on a later call is named as depending on earlier calls.
        """
        for x in {id(x): x for x in inputs}.values():
            self.forward_case(cls, args, kwargs, x, state=state, mode=mode, expected=lambda t, _: expected(t),
                              suspects=(lambda t, _: suspects(t)) if suspects else None)  # fmt: skip
        steps = [Step([x.tensor]) for x in inputs]
        replies = self.run(self.program(cls, args, kwargs, state=state, mode=mode, steps=steps)).steps
        for number, (x, reply) in enumerate(zip(inputs, replies, strict=True), start=1):
            call = say("{call} (call {n} of {total} on the same module)", "{call}（同一模块的第 {n}/{total} 次调用）",
                       call=call_text(cls, args, kwargs), n=number, total=len(inputs))  # fmt: skip
            want = expected(x.tensor)
            with torch.no_grad():
                error = own_errors(lambda moved: [expected(moved[0])], [x.tensor], [want])[0]
            self.assert_close(reply.output, want, tol=achievable(tolerance_for(x.tensor.dtype), error), call=call,
                              on=x.describe(self.device), cause=STATEFUL)  # fmt: skip

    def gradient_case(
        self,
        cls: str,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        x: Input,
        *,
        reference: torch.nn.Module,
        state: dict[str, torch.Tensor] | None = None,
        mode: str = "train",
        key: int = 99,
        suspects: Callable[[torch.Tensor, dict[str, torch.Tensor]], list[tuple[Misconception, torch.Tensor]]]
        | None = None,
    ) -> None:
        """Gradients of input and parameters against the float64 reference's autograd.

        `suspects(x, state)` (the forward variants, each with one mistake) are differentiated
        too, on float64 leaves, so that a gradient that matches a mistake's gradient is named.
        """
        grad_output = randn(x.tensor.shape, key)
        step = Step([x.tensor], input_grad=True, grad_output=grad_output)
        got = self.run(self.program(cls, args, kwargs, state=state, mode=mode, steps=[step])).steps[0]
        reference = reference.double().train(mode == "train")
        if state:
            reference.load_state_dict({k: v.double() if v.is_floating_point() else v for k, v in state.items()})
        names = [name for name, _ in reference.named_parameters()]

        def truth(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
            """The gradients of the input and of each parameter, by the reference in the inputs' dtype."""
            module = copy.deepcopy(reference).to(tensors[0].dtype)
            leaf = tensors[0].detach().clone().requires_grad_(True)
            module(leaf).backward(tensors[1].to(tensors[0].dtype))
            grads = [leaf.grad, *(p.grad for _, p in module.named_parameters())]
            return [g if g is not None else torch.zeros(0) for g in grads]

        inputs = [x.tensor, grad_output.to(x.tensor.dtype)]
        want = truth([t.double() for t in inputs])
        errors = own_errors(truth, inputs, want, truth(inputs) if x.tensor.dtype == torch.float32 else [])
        call, on = call_text(cls, args, kwargs, method="backward"), x.describe(self.device)
        tol = TOLERANCES["gradient"]
        if not got.input_grads or got.input_grads[0] is None:
            fail(say("{call} on {on}: no gradient reached the input (is the graph cut by .detach(), .data or no_grad?)",
                     "{call}，{on}：输入没有得到梯度（计算图是否被 .detach()、.data 或 no_grad 切断了？）",
                     call=call, on=on))  # fmt: skip
        found = _gradient_suspects(suspects, x.tensor, state or {}, names, grad_output) if suspects else {}
        what = say("gradient of the input", "输入的梯度")
        self.assert_close(got.input_grads[0], want[0], tol=achievable(tol, errors[0]), call=call, on=on, what=what,
                          suspects=found.get("", []))  # fmt: skip
        for index, name in enumerate(names, start=1):
            learner_grad = got.param_grads.get(name)
            if learner_grad is None:
                fail(say("{call} on {on}: parameter `{name}` got no gradient",
                         "{call}，{on}：参数 `{name}` 没有得到梯度", call=call, on=on, name=name))
            what = say("gradient of {name}", "{name} 的梯度", name=name)
            self.assert_close(learner_grad, want[index], tol=achievable(tol, errors[index]), call=call, on=on,
                              what=what, suspects=found.get(name, []))  # fmt: skip

    # -- comparing -----------------------------------------------------------------------------

    def assert_close(
        self,
        got: torch.Tensor,
        expected: torch.Tensor,
        *,
        tol: Tolerance,
        call: str,
        on: str,
        what: str | None = None,
        suspects: Sequence[tuple[Misconception, torch.Tensor]] = (),
        cause: Misconception | None = None,
    ) -> None:
        """Fail with a precise message unless got ≈ expected (in float64).

        The failure names the first suspect whose output matches, else `cause` when the case
        already knows what a failure here means (a later call on a module that was right fresh).
        """
        what = what or say("output", "输出")
        if tuple(got.shape) != tuple(expected.shape):
            fail(say("{call} on {on}: {what} has shape {got}, expected {expected}",
                     "{call}，{on}：{what}的形状是 {got}，应为 {expected}",
                     call=call, on=on, what=what, got=tuple(got.shape), expected=tuple(expected.shape)))  # fmt: skip
        got64, expected64 = got.double(), expected.double()
        close = torch.isclose(got64, expected64, rtol=tol.rtol, atol=tol.atol)
        if bool(close.all()):
            return
        error = (got64 - expected64).abs()
        error[~torch.isfinite(got64)] = float("inf")
        flat = int(torch.argmax(torch.where(close, torch.zeros_like(error), error + 1)).item())
        index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), got.shape)) if got.dim() else ()
        message = say(
            "{call} on {on}: {what} differs from the reference. Max abs error {err:.3g} at index {index}: "
            "expected {exp:.6g}, got {got:.6g} ({tol}).",
            "{call}，{on}：{what}与参考实现不一致。最大绝对误差 {err:.3g}，位于下标 {index}："
            "应为 {exp:.6g}，实际为 {got:.6g}（{tol}）。",
            call=call, on=on, what=what, err=error.max().item(), index=index, exp=expected64[index].item(),
            got=got64[index].item(), tol=tol.describe(_RUN.lang),
        )  # fmt: skip
        # A mistake is named only where its signature shows: its output differs from the truth on
        # this input (else every wrong file near the truth would "match" it) and the learner's
        # output matches it everywhere (NaN where it gives NaN).
        near = tol.at_least(TOLERANCES["misconception"])
        for misconception, variant in suspects:
            if tuple(variant.shape) != tuple(got.shape):
                continue
            variant64 = variant.detach().double().cpu()
            if bool(torch.isclose(variant64, expected64.cpu(), rtol=tol.rtol, atol=tol.atol, equal_nan=True).all()):
                continue
            if bool(torch.isclose(got64.cpu(), variant64, rtol=near.rtol, atol=near.atol, equal_nan=True).all()):
                cause = misconception
                break
        if cause is not None:
            message += " " + self.diagnose(cause)
        fail(message)

    def diagnose(self, misconception: Misconception) -> str:
        """Record `misconception` for this case and the sentence that names it to the learner."""
        self.record(misconception)
        return say("This matches a known mistake: {title}.", "这符合一个常见错误：{title}。",
                   title=misconception.title(_RUN.lang))  # fmt: skip

    def assert_dtype(self, got: torch.Tensor, expected: torch.dtype, *, call: str, on: str) -> None:
        if got.dtype != expected:
            fail(say("{call} on {on}: output dtype is {got}, expected {expected} (return the input's dtype when "
                     "the parameters share it)",
                     "{call}，{on}：输出的数据类型是 {got}，应为 {expected}"
                     "（参数与输入同为该类型时，返回输入的数据类型）",
                     call=call, on=on, got=dtype_name(got.dtype), expected=dtype_name(expected)))




def _gradient_suspects(
    suspects: Callable[[torch.Tensor, dict[str, torch.Tensor]], list[tuple[Misconception, torch.Tensor]]],
    x: torch.Tensor,
    state: dict[str, torch.Tensor],
    names: Sequence[str],
    grad_output: torch.Tensor,
) -> dict[str, list[tuple[Misconception, torch.Tensor]]]:
    """Each mistaken forward's gradients, by what they are of: "" (the input) or a parameter's name."""
    leaf = x.detach().double().cpu().requires_grad_(True)
    params = {k: v.detach().double().cpu().requires_grad_(True) if v.is_floating_point() else v
              for k, v in state.items()}  # fmt: skip
    found: dict[str, list[tuple[Misconception, torch.Tensor]]] = {}
    with torch.enable_grad():
        for misconception, output in suspects(leaf, params):
            if not output.requires_grad or tuple(output.shape) != tuple(grad_output.shape):
                continue
            wrt = [leaf, *(params[n] for n in names if n in params)]
            grads = torch.autograd.grad(output, wrt, grad_output.double(), retain_graph=True, allow_unused=True)
            for name, grad in zip(["", *(n for n in names if n in params)], grads, strict=True):
                if grad is not None:
                    found.setdefault(name, []).append((misconception, grad))
    return found


# -- module state ------------------------------------------------------------------------------


def expect_parameters(call: str, info: Inspection, expected: dict[str, torch.Tensor]) -> None:
    """Exactly these parameters, with these shapes, dtypes and initial values."""
    expect_keys(call, say("parameters", "参数"), list(info.parameters), list(expected))
    for name, value in expected.items():
        got = info.parameters[name]
        want_dtype = dtype_name(value.dtype)
        if got.shape != list(value.shape) or got.dtype != want_dtype:
            fail(say("{call}.{name} is {dtype} of shape {shape}, expected {want_dtype} of shape {want_shape}",
                     "{call}.{name} 是形状 {shape} 的 {dtype}，应为形状 {want_shape} 的 {want_dtype}",
                     call=call, name=name, dtype=got.dtype, shape=got.shape, want_dtype=want_dtype,
                     want_shape=list(value.shape)))  # fmt: skip
        if not got.is_parameter or not got.requires_grad:
            fail(say("{call}.{name} must be an nn.Parameter that requires grad",
                     "{call}.{name} 必须是 requires_grad 的 nn.Parameter", call=call, name=name))
        if not torch.equal(got.value.to(value.dtype), value):
            fail(say("{call}.{name} should start as {init}", "{call}.{name} 的初始值应为 {init}",
                     call=call, name=name, init=_describe_init(value)))  # fmt: skip


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
        fail(say("{call}: {what}: {parts}. Fix: there should be none.",
                 "{call}：{what}：{parts}。修改：这里不应有任何名称。", call=call, what=what, parts="; ".join(parts)))
    fail(say("{call}: {what}: {parts}. Fix: use exactly these names: {expected}.",
             "{call}：{what}：{parts}。修改：名称应恰好是 {expected}。",
             call=call, what=what, parts="; ".join(parts), expected=_names(expected)))  # fmt: skip


def expect_contains(call: str, what: str, got: Sequence[str], required: Sequence[str]) -> None:
    """At least these names (extra harmless children are the learner's business)."""
    missing = [k for k in required if k not in got]
    if missing:
        fail(say("{call}: {what}: missing {names} (the instructions fix these names)",
                 "{call}：{what}：缺少 {names}（这些名称由题目规定）", call=call, what=what, names=_names(missing)))


def _names(names: Sequence[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _describe_init(value: torch.Tensor) -> str:
    if bool((value == 1).all()):
        return say("ones", "全 1")
    if bool((value == 0).all()):
        return say("zeros", "全 0")
    return say("the given values", "给定的值")


# -- construction and error details ------------------------------------------------------------


def build_failure(harness: Harness, cls: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None
                  ) -> Failure | None:  # fmt: skip
    """Build `cls(*args, **kwargs)` in the worker: what it raised, or None when it built.

    For contracts that require a constructor to refuse bad arguments (as torch's modules do).
    """
    try:
        reply = harness.submission.run(harness.program(cls, args, kwargs))
    except TimeBudgetUsed:
        raise
    except SubmissionError as exc:
        raise LearnerError(f"{call_text(cls, args, kwargs, None)}: {exc.text(_RUN.lang)}") from None
    return None if reply.ok else reply.failure or Failure("Error", "", 0, "build")


def broadcast_sizes(failure: Failure) -> tuple[int, int] | None:
    """The two sizes a forward's broadcast error names (tensor a's, tensor b's), if it is one."""
    match = _BROADCAST.search(failure.message) if failure.stage == "forward" else None
    return (int(match[1]), int(match[2])) if match else None


# -- autograd Functions with a hand-written backward -------------------------------------------

AUTOGRAD_IN_BACKWARD = Misconception(
    "autograd-in-backward",
    "backward uses autograd instead of the derived formula",
    "backward 用了 autograd，而不是推导出的公式",
    "Compute every gradient from what forward saved, with plain tensor operations: no torch.autograd.grad, "
    "no .backward() and no torch.enable_grad() inside backward.",
    "只用 forward 保存的张量和普通张量运算算出每个梯度：backward 里不要调用 torch.autograd.grad、.backward()，"
    "也不要用 torch.enable_grad()。",
)


@dataclass
class FunctionCall:
    """`cls.apply(*tensors, *extra.values())` on one input, as a suite sends it and the learner reads it."""

    cls: str
    names: Sequence[str]  # the tensors' names, in order: x, weight, bias
    tensors: Sequence[torch.Tensor]
    extra: dict[str, Any]  # plain arguments after the tensors, passed by position: eps
    label: str  # what the input x is, for the learner: "N(0,1)", "small-variance (1e-3·N(0,1))"

    def text(self) -> str:
        """`RMSNormFunction.apply(x, weight, eps=1e-05)`."""
        parts = [*self.names, *(f"{k}={_value(v)}" for k, v in self.extra.items())]
        return f"{self.cls}.apply({', '.join(parts)})"

    def program(self, harness: Harness, grad_output: torch.Tensor | None) -> Program:
        step = Step(list(self.tensors), input_grad=grad_output is not None, grad_output=grad_output,
                    extra=list(self.extra.values()))  # fmt: skip
        return Program(self.cls, [], {}, device=harness.device, steps=[step], seed=_RUN.seed, kind="function")

    def run(self, harness: Harness, grad_output: torch.Tensor | None,
            error_suspects: Sequence[ErrorSuspect] = ()) -> StepReply:  # fmt: skip
        try:
            reply = harness.submission.run(self.program(harness, grad_output))
        except TimeBudgetUsed:
            raise
        except SubmissionError as exc:
            raise LearnerError(f"{self.text()}: {exc.text(_RUN.lang)}") from None
        if not reply.ok:
            failure = reply.failure or Failure("Error", "", 0, "run")
            message = explain(failure, self.text())
            for misconception, matches in error_suspects:
                if matches(failure):
                    message += " " + harness.diagnose(misconception)
                    break
            raise LearnerError(message)
        return reply.steps[0]


Suspects = Sequence[tuple[Misconception, torch.Tensor]]


def backward_case(
    harness: Harness,
    call: FunctionCall,
    *,
    grad_output: torch.Tensor,
    expected: Sequence[torch.Tensor],
    suspects: Sequence[Suspects] = (),
    error_suspects: Sequence[ErrorSuspect] = (),
    truth: Callable[[list[torch.Tensor]], Sequence[torch.Tensor]] | None = None,
) -> StepReply:
    """Forward, then backward with `grad_output`: the output and the gradient of every tensor.

    `expected` is the output then one gradient per tensor (float64); `suspects` lines up with it.
    Outputs use the input dtype's tolerance, gradients the gradient tolerance (float64's in float64),
    never tighter than what the case's precision delivers on this input (`own_errors`), when the
    suite gives `truth`: [*tensors, grad_output] → the same output and gradients, computed in the
    tensors' dtype (torch's own norm and its autograd).
    """
    got = call.run(harness, grad_output, error_suspects)
    dtype = call.tensors[0].dtype
    errors = [0.0] * len(expected)
    if truth is not None:
        inputs = [*call.tensors, grad_output]
        errors = own_errors(truth, inputs, expected, truth(list(inputs)) if dtype == torch.float32 else [])
    on = Input(call.tensors[0], call.label).describe(harness.device)
    found = [*suspects, *([()] * (len(expected) - len(suspects)))]
    if not got.outputs:
        fail(say("{call} on {on}: forward returned nothing", "{call}，{on}：forward 没有返回值",
                 call=call.text(), on=on))  # fmt: skip
    harness.assert_close(got.output, expected[0], tol=achievable(tolerance_for(dtype), errors[0]), call=call.text(),
                         on=on, suspects=found[0])  # fmt: skip
    tol = TOLERANCES["float64" if dtype == torch.float64 else "gradient"]
    backward = say("{call}, then backward", "{call} 之后反向传播", call=call.text())
    for name, tensor, shape in zip(call.names, call.tensors, got.backward_shapes, strict=False):
        if shape is not None and shape != list(tensor.shape):
            fail(say("{call} on {on}: backward returned the gradient of {name} with shape {got}, expected {want}, "
                     "the shape of {name} (autograd would sum it for you, but the instructions ask backward for it: "
                     "sum over every dimension {name} does not have)",
                     "{call}，{on}：backward 返回的 {name} 的梯度形状为 {got}，应为 {want}，即 {name} 的形状"
                     "（autograd 会替你求和，但题目要求 backward 自己给出：在 {name} 没有的维度上求和）",
                     call=backward, on=on, name=name, got=tuple(shape), want=tuple(tensor.shape)))  # fmt: skip
    for index, name in enumerate(call.names):
        grad = got.input_grads[index] if index < len(got.input_grads) else None
        if grad is None:
            fail(say("{call} on {on}: no gradient for {name} (did backward return None in its place?)",
                     "{call}，{on}：{name} 没有得到梯度（backward 是否在它的位置返回了 None？）",
                     call=backward, on=on, name=name))  # fmt: skip
        what = say("gradient of {name}", "{name} 的梯度", name=name)
        harness.assert_close(grad, expected[index + 1], tol=achievable(tol, errors[index + 1]), call=backward, on=on,
                             what=what, suspects=found[index + 1])  # fmt: skip
    return got


def expect_no_autograd(harness: Harness, call: FunctionCall, got: StepReply) -> None:
    """Fail, naming the mistake, when the learner's backward used autograd (what the worker saw)."""
    if got.autograd_in_backward:
        fail(say("{call}: the gradient did not come from backward's own formula alone ({found}); this kata asks "
                 "for the gradients written out in backward. ",
                 "{call}：梯度并非只来自 backward 自己的公式（{found}）；本练习要求在 backward 中手写出梯度。",
                 call=call.text(), found=", ".join(got.autograd_in_backward))
             + harness.diagnose(AUTOGRAD_IN_BACKWARD))  # fmt: skip


def invalid_gradient(index: int) -> Callable[[Failure], bool]:
    """Matches autograd's refusal of a gradient whose shape does not fit input `index`."""
    return lambda failure: f"returned an invalid gradient at index {index}" in failure.message
