"""`normkata content check --deep`: each kata proves its own suite, as rustlings' `dev check`.

The reference must pass on several seeds, the untouched starter must fail and score 0, every
fixture must get its expected verdict (and named mistake; a correct fixture on several seeds),
and every misconception a suite defines must be named for at least one fixture: a misconception
no wrong file ever triggers is dead code.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from normkata.content.katas import Kata
from normkata.grading.client import Grader
from normkata.grading.contract import Status
from normkata.grading.errors import GraderError
from normkata.grading.fixtures import Fixture, fixtures_available, kata_fixtures, misconception_ids

#: Inputs every deep check draws: the same run twice gives the same answer.
SEED = 20261122
#: A correct file must pass on every seed (docs/grading.md): the reference is graded on this many
#: seeds (SEED, SEED + 1, ...) and each correct fixture on CORRECT_FIXTURE_SEEDS of them.
REFERENCE_SEEDS = 5
CORRECT_FIXTURE_SEEDS = 2


def _seeds(count: int) -> list[int]:
    return [SEED + k for k in range(count)]


@dataclass(frozen=True)
class Problem:
    kata: str
    what: str

    def __str__(self) -> str:
        return f"{self.kata}: {self.what}"


def planned_grades(katas: list[Kata]) -> int:
    return sum(
        REFERENCE_SEEDS + 1 + sum(CORRECT_FIXTURE_SEEDS if f.passes else 1 for f in kata_fixtures(k.id)) for k in katas
    )


def deep_check(katas: list[Kata], advance: Callable[[str], None]) -> tuple[list[Problem], bool]:
    """Problems found, and whether fixtures were available (a source checkout has them)."""
    problems: list[Problem] = []
    # One warm grader for every file: each still gets a fresh confined worker.
    with tempfile.TemporaryDirectory(prefix="normkata-deep-") as scratch, Grader() as service:
        for kata in katas:
            problems += _check_kata(service, kata, Path(scratch) / kata.id, advance)
    return problems, fixtures_available()


def _grade_source(
    service: Grader, kata: Kata, folder: Path, source: str, seed: int = SEED
) -> tuple[bool, int, set[str], list[str]]:
    folder.mkdir(parents=True, exist_ok=True)
    learner = folder / kata.file
    learner.write_text(source, encoding="utf-8")
    result = service.grade(kata.id, learner, seed=seed)
    messages = [f"{c.name}: {c.message}" for c in result.cases if c.status in (Status.FAILED, Status.ERROR)]
    return result.passed, result.score, {d.id for d in result.diagnosis}, messages


def _check_kata(service: Grader, kata: Kata, folder: Path, advance: Callable[[str], None]) -> list[Problem]:
    try:  # the suite as collected: every case titled in both languages (kata.yaml's cases, katas/shared.yaml)
        service.list_cases(kata.id, "zh")
    except GraderError as exc:
        return [Problem(kata.id, str(exc))]
    problems: list[Problem] = []
    reference = kata.solution.read_text(encoding="utf-8")
    for seed in _seeds(REFERENCE_SEEDS):
        passed, _, _, messages = _grade_source(service, kata, folder / "reference", reference, seed)
        advance(f"{kata.id}: reference, seed {seed}")
        if not passed:
            problems.append(Problem(kata.id, f"the reference solution fails its suite on seed {seed}: {messages[:1]}"))
    passed, score, _, _ = _grade_source(service, kata, folder / "starter", kata.starter.read_text(encoding="utf-8"))
    advance(f"{kata.id}: starter")
    if passed or score:
        problems.append(Problem(kata.id, f"the untouched starter scores {score}, expected 0 and a fail"))
    fixtures = kata_fixtures(kata.id)
    named: set[str] = set()
    for number, fixture in enumerate(fixtures):
        passed, _, diagnoses, messages = _grade_source(service, kata, folder / f"fixture{number}", fixture.source)
        advance(f"{kata.id}: {fixture.id}")
        named |= diagnoses
        problems += _verdict_problems(kata, fixture, passed, diagnoses, messages)
        for seed in _seeds(CORRECT_FIXTURE_SEEDS)[1:] if fixture.passes else []:
            passed, _, _, messages = _grade_source(service, kata, folder / f"fixture{number}", fixture.source, seed)
            advance(f"{kata.id}: {fixture.id}, seed {seed}")
            if not passed:
                problems.append(Problem(kata.id, f"fixture {fixture.id} fails on seed {seed}: {messages[:1]}"))
    if fixtures:
        for unused in [m for m in misconception_ids(kata.suite) if m not in named]:
            problems.append(Problem(kata.id, f"misconception {unused} is named for no fixture"))
    return problems


def _verdict_problems(
    kata: Kata, fixture: Fixture, passed: bool, diagnoses: set[str], messages: list[str]
) -> list[Problem]:
    if passed != fixture.passes:
        verdict = "passes" if passed else f"fails ({messages[:1]})"
        return [Problem(kata.id, f"fixture {fixture.id} {verdict}, expected to {'pass' if fixture.passes else 'fail'}")]
    if fixture.diagnosis and fixture.diagnosis not in diagnoses:
        return [Problem(kata.id, f"fixture {fixture.id} is not named {fixture.diagnosis} (named: {sorted(diagnoses)})")]
    if fixture.message and not any(fixture.message in m for m in messages):
        return [Problem(kata.id, f"fixture {fixture.id}: no failure says {fixture.message!r}")]
    return []
