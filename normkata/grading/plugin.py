"""The pytest plugin that runs a hidden suite against a submission and records each case."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from normkata.content.suite_names import SuiteNames
from normkata.grading.checks import CaseFailure, Harness, LearnerError, Misconception, say, say_text
from normkata.grading.contract import CaseResult, Category, Cause, Status
from normkata.grading.proxy import BUDGET_USED, Submission, TimeBudgetUsed

#: The markers a suite may use, registered by the plugin that reads them.
MARKERS = ("category(name): the report category of a case (normkata.grading.contract.Category)",)


def _register_markers(config: pytest.Config) -> None:
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)


class SuiteError(Exception):
    """A hidden suite breaks the contract (an unknown category, a case without a title)."""


class GradingPlugin:
    """Fixtures for the suite (`harness`) and a record of every case's outcome."""

    def __init__(
        self,
        submission: Submission,
        names: SuiteNames,
        device: str,
        cuda_available: bool,
        lang: str,
        select: list[str] | None = None,
    ) -> None:
        self.submission = submission
        self.names = names
        self.select = [pattern.casefold() for pattern in select or []]
        self.device = device  # auto | cpu | cuda
        self.cuda_available = cuda_available
        self.lang = lang
        self.results: list[CaseResult] = []
        self.diagnoses: dict[str, tuple[Misconception, int]] = {}
        self.suite_errors: list[str] = []
        self._current: Misconception | None = None

    def _record(self, misconception: Misconception) -> None:
        self._current = misconception
        known, count = self.diagnoses.get(misconception.id, (misconception, 0))
        self.diagnoses[misconception.id] = (known, count + 1)

    def pytest_configure(self, config: pytest.Config) -> None:
        _register_markers(config)

    @pytest.fixture
    def harness(self, request: pytest.FixtureRequest) -> Harness:
        return Harness(self.submission, _device_of(request.node), self._record)

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if self.select:
            chosen = [item for item in items if matches(item, self.select, self.names)]
            config.hook.pytest_deselected(items=[item for item in items if item not in chosen])
            items[:] = chosen
        for item in items:
            try:
                _category(item)
                _case_name(item, self.names, "zh")
            except SuiteError as exc:
                self.suite_errors.append(str(exc))
            if _device_of(item) != "cuda":
                continue
            if self.device == "cpu":
                item.add_marker(pytest.mark.skip(reason="--device cpu"))
            elif not self.cuda_available:
                item.add_marker(
                    pytest.mark.skip(reason=say("CUDA is not available on this machine", "本机没有可用的 CUDA"))
                )

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
        outcome = yield
        report = outcome.get_result()
        if call.when == "setup" and report.skipped:
            self._add(item, Status.SKIPPED, _skip_reason(report))
        elif call.when == "call" or (call.when == "setup" and report.failed):
            self._add(item, *_classify(call))

    def _add(
        self, item: pytest.Item, status: Status, message: str, cause: Cause | None = None, called: str | None = None
    ) -> None:
        diagnosis = self._current.id if self._current and status in (Status.FAILED, Status.ERROR) else None
        self._current = None
        name = _case_name(item, self.names, self.lang)
        self.results.append(
            CaseResult(_case_id(item), name, _category(item), status, message, diagnosis, called, cause)
        )


class CaseLister:
    """Collects a suite's cases without running them (`grade --list`)."""

    def __init__(self, names: SuiteNames, lang: str) -> None:
        self.names = names
        self.lang = lang
        self.cases: list[tuple[Category, str]] = []
        self.suite_errors: list[str] = []

    def pytest_configure(self, config: pytest.Config) -> None:
        _register_markers(config)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            try:
                self.cases.append((_category(item), _case_name(item, self.names, self.lang)))
            except SuiteError as exc:
                self.suite_errors.append(str(exc))


def matches(item: pytest.Item, patterns: list[str], titles: SuiteNames) -> bool:
    """`grade -k`: a pattern is part of the case's name, as the report shows it in either language."""
    names = [item.name.casefold()]
    with contextlib.suppress(SuiteError):  # an untitled case is reported once, by collection
        names += [_case_name(item, titles, lang).casefold() for lang in ("en", "zh")]
    return any(pattern in name for pattern in patterns for name in names)


def _device_of(item: Any) -> str:
    callspec = getattr(item, "callspec", None)
    return str(callspec.params.get("device", "cpu")) if callspec else "cpu"


def _category(item: pytest.Item) -> Category:
    if _device_of(item) == "cuda":
        return Category.CUDA
    marker = item.get_closest_marker("category")
    if marker is None:
        raise SuiteError(f"{item.name}: no @pytest.mark.category")
    try:
        return Category(marker.args[0])
    except ValueError:
        raise SuiteError(f"{item.name}: unknown category {marker.args[0]!r}") from None


def _case_id(item: pytest.Item) -> str:
    """`forward[2x5x8-cpu]`: the case's pytest name without `test_`, what the record keeps."""
    return item.name.removeprefix("test_")


def _case_name(item: pytest.Item, names: SuiteNames, lang: str) -> str:
    """`forward [2x5x8-cpu]`, `前向 [2x5x8-cpu]`: titled by kata.yaml's `cases` or katas/shared.yaml
    (normkata.content.suite_names); a case neither titles breaks the suite."""
    case_id = _case_id(item)
    if not names.titled(case_id):
        raise SuiteError(f"{item.name}: no title in kata.yaml's cases nor in katas/shared.yaml")
    return names.case(case_id, lang)


def _classify(call: pytest.CallInfo[Any]) -> tuple[Status, str, Cause | None, str | None]:
    """The case's status, message, cause, and the call it made as the failure carries it."""
    if call.excinfo is None:
        return Status.PASSED, "", None, None
    exc = call.excinfo.value
    if isinstance(exc, CaseFailure):
        return Status.FAILED, str(exc), None, exc.call
    if isinstance(exc, TimeBudgetUsed):
        return Status.ERROR, say_text(BUDGET_USED), Cause.TIMEOUT, None
    if isinstance(exc, LearnerError):
        return Status.ERROR, str(exc), exc.cause, exc.call
    if call.excinfo.errisinstance(pytest.skip.Exception):
        return Status.SKIPPED, str(exc), None, None
    # Anything else came out of comparing what the learner returned (a wrong type, say).
    return Status.ERROR, f"{type(exc).__name__}: {exc}"[:500], None, None


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return "skipped"
