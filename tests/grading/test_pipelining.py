"""A case sends its program, computes the truth while the worker runs it, then reads the reply
(`Submission.begin` / `collect`): the runner's own time never costs the learner a time-out, and a
reply nobody read is never taken for the next program's."""

from __future__ import annotations

import time
from pathlib import Path

import torch

from normkata.grading.messages import LoadRequest, Program, Step
from normkata.grading.proxy import Submission

_DOUBLES = "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x * {factor}\n"


def _submission(tmp_path: Path, factor: int = 2) -> Submission:
    learner = tmp_path / "m.py"
    learner.write_text(_DOUBLES.format(factor=factor), encoding="utf-8")
    submission = Submission(LoadRequest(str(learner), ["M"], []), [], timeout=0.5, budget=60)
    assert submission.load().ok
    return submission


def _program(value: float) -> Program:
    return Program("M", [], {}, steps=[Step([torch.full((3,), value)])])


def test_a_reply_read_after_the_case_timeout_is_still_the_answer(tmp_path: Path) -> None:
    submission = _submission(tmp_path)
    try:
        submission.begin(_program(1.0))
        time.sleep(0.8)  # the runner computes the truth for longer than the case's 0.5 s
        reply = submission.collect()
        assert reply.ok and reply.steps[0].outputs[0].tolist() == [2.0, 2.0, 2.0]
        assert submission.restarts == 0
    finally:
        submission.close()


def test_a_reply_nobody_collected_is_dropped_not_read_as_the_next(tmp_path: Path) -> None:
    submission = _submission(tmp_path)
    try:
        submission.begin(_program(1.0))  # a suite that raised before collecting
        submission.begin(_program(5.0))
        assert submission.collect().steps[0].outputs[0].tolist() == [10.0, 10.0, 10.0]
        assert submission.run(_program(7.0)).steps[0].outputs[0].tolist() == [14.0, 14.0, 14.0]
    finally:
        submission.close()
