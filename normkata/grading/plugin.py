"""The pytest plugin that runs a hidden suite against a submission and records each case."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from normkata.grading.checks import CaseFailure, Harness, LearnerError, Misconception
from normkata.grading.proxy import Submission


@dataclass
class CaseResult:
    name: str
    category: str
    status: str  # passed | failed | error | skipped
    message: str = ""
    diagnosis: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "category": self.category,
            "status": self.status,
            "message": self.message,
            "diagnosis": self.diagnosis,
        }


class GradingPlugin:
    """Fixtures for the suite (`harness`, `reference`) and a record of every case's outcome."""

    def __init__(self, submission: Submission, reference_module: Any, device: str, cuda_available: bool) -> None:
        self.submission = submission
        self.reference_module = reference_module
        self.device = device  # auto | cpu | cuda
        self.cuda_available = cuda_available
        self.results: list[CaseResult] = []
        self.diagnoses: dict[str, tuple[Misconception, int]] = {}
        self._current: Misconception | None = None

    def _record(self, misconception: Misconception) -> None:
        self._current = misconception
        known, count = self.diagnoses.get(misconception.id, (misconception, 0))
        self.diagnoses[misconception.id] = (known, count + 1)

    @pytest.fixture
    def harness(self, request: pytest.FixtureRequest) -> Harness:
        device = _device_of(request.node)
        return Harness(self.submission, self.reference_module, device, self._record)

    @pytest.fixture
    def reference(self) -> Any:
        return self.reference_module

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            if _device_of(item) != "cuda":
                continue
            if self.device == "cpu":
                item.add_marker(pytest.mark.skip(reason="--device cpu"))
            elif not self.cuda_available:
                item.add_marker(pytest.mark.skip(reason="CUDA is not available on this machine"))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Any:
        outcome = yield
        report = outcome.get_result()
        if call.when == "setup" and report.skipped:
            self._add(item, "skipped", _skip_reason(report))
        elif call.when == "call" or (call.when == "setup" and report.failed):
            self._add(item, *_classify(call))

    def _add(self, item: pytest.Item, status: str, message: str) -> None:
        diagnosis = self._current.id if self._current and status == "failed" else None
        self._current = None
        self.results.append(CaseResult(_case_name(item), _category(item), status, message, diagnosis))


def _device_of(item: Any) -> str:
    callspec = getattr(item, "callspec", None)
    return str(callspec.params.get("device", "cpu")) if callspec else "cpu"


def _category(item: pytest.Item) -> str:
    if _device_of(item) == "cuda":
        return "CUDA"
    marker = item.get_closest_marker("category")
    return str(marker.args[0]) if marker else "forward fp32"


def _case_name(item: pytest.Item) -> str:
    name = item.name.removeprefix("test_")
    base, _, params = name.partition("[")
    return base.replace("_", " ") + (f" [{params}" if params else "")


def _classify(call: pytest.CallInfo) -> tuple[str, str]:
    if call.excinfo is None:
        return "passed", ""
    exc = call.excinfo.value
    if isinstance(exc, CaseFailure):
        return "failed", str(exc)
    if isinstance(exc, LearnerError):
        return "error", str(exc)
    if call.excinfo.errisinstance(pytest.skip.Exception):
        return "skipped", str(exc)
    # Anything else came out of comparing what the learner returned (a wrong type, say).
    return "error", f"{type(exc).__name__}: {exc}"[:500]


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return "skipped"
