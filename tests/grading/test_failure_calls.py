"""The call a failed case made travels on the failure the suite raises (CaseFailure, LearnerError)
and reaches `CaseResult.call` as it was made, never read back out of the message's text: an input
described with a colon in it (an autotune config, `std-300 (300·N(0,1): ...)`) keeps its whole call."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest
import torch

from normkata.grading.checks import CaseFailure, LearnerError, Misconception, call_on, configure, fail
from normkata.grading.checks.wording import explanation
from normkata.grading.contract import Cause, Status
from normkata.grading.messages import Failure, StepReply
from normkata.grading.plugin import _classify
from normkata.i18n.text import Text


@pytest.fixture(params=["en", "zh"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    configure(0, request.param, "rmsnorm.py")
    yield request.param
    configure(0, "en")


def classified(exc: BaseException) -> tuple[Status, str, Cause | None, str | None]:
    try:
        raise exc
    except BaseException:
        info = pytest.ExceptionInfo.from_current()
    return _classify(SimpleNamespace(excinfo=info))  # type: ignore[arg-type]


def test_a_failed_case_carries_its_call_whatever_the_input_says(lang: str) -> None:
    on = "x, under autotune config _fwd: BLOCK=16" if lang == "en" else "x，autotune 配置为 _fwd: BLOCK=16"
    call = call_on("launch(x)", on)
    with pytest.raises(CaseFailure) as failed:
        fail(call + (": y differs from the reference." if lang == "en" else "：y 与参考实现不一致。"), call=call)
    status, message, cause, carried = classified(failed.value)
    assert (status, cause, carried) == (Status.FAILED, None, call)
    assert message.startswith(carried + (":" if lang == "en" else "："))
    assert carried.endswith("BLOCK=16")  # the old reading stopped at the config's own colon


def test_an_errored_case_carries_the_call_its_explanation_begins_with(lang: str) -> None:
    lead, message = explanation(Failure("ValueError", "boom", 9, "forward", "ValueError"), "RMSNorm(16)")
    assert lead == (
        "RMSNorm(16) in forward raised ValueError" if lang == "en" else "RMSNorm(16) 在 forward 中抛出 ValueError"
    )
    assert message == lead + (": boom (at rmsnorm.py:9)" if lang == "en" else "：boom（位置 rmsnorm.py:9）")
    status, _, cause, carried = classified(LearnerError(message, call=lead))
    assert (status, cause, carried) == (Status.ERROR, Cause.RAISED, lead)
    unimplemented = explanation(Failure("NotImplementedError", "", 0, "forward"), "RMSNorm(16)")
    assert unimplemented[0] == "RMSNorm(16)" and unimplemented[1].startswith("RMSNorm(16)")


def test_a_failure_without_a_call_carries_none() -> None:
    with pytest.raises(CaseFailure) as failed:
        fail("importing your file changed torch's global state (default dtype)")
    assert classified(failed.value)[3] is None
    assert classified(AssertionError("a comparison went wrong"))[3] is None


def test_the_kernel_checks_carry_the_launch_and_its_input(lang: str) -> None:
    from normkata.grading.kernel_checks import check_findings

    class Named:
        def diagnose(self, misconception: object) -> str:
            return "named"

    reply = StepReply(outputs=[torch.zeros(2, 5)], launches=[], written=[None])
    mistake = Misconception("no-mask", Text("t", "t"), Text("h", "h"))
    on = "x: N(0,1)"
    with pytest.raises(CaseFailure) as failed:
        check_findings(Named(), reply, "launch(x)", on, 5, no_mask=mistake, off_by_one=mistake)  # type: ignore[arg-type]
    assert failed.value.call == call_on("launch(x)", on) and str(failed.value).startswith(failed.value.call)
