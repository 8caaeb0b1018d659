"""The graders' own tests: every fixture is graded by the grading service, as `watch` and
`grade-all` grade a learner's file (a fresh confined worker per file); the CLI end to end is
tests/test_kata_cli.py's.

Each fixture's first line says what must happen: `# expect: pass`, or `# expect: fail`,
optionally with `diagnosis=ID` (a misconception the report must name) or `message=TEXT`
(text some case's message must contain). Fixtures live in `fixtures/<kata>/` (ours),
`realworld/<kata>/` (styles found in public code, written by us) and `fixtures/hostile/`; those
one edit away from a correct implementation are edits in mutants.py. Katas come from the
catalog: a new kata needs its folder, its solution and its fixtures, nothing here.
"""

from __future__ import annotations

import shutil
import zlib
from pathlib import Path

import pytest
import torch

from normkata.content.katas import load_katas
from normkata.grading.client import Grader
from normkata.grading.fixtures import Fixture, from_file, kata_fixtures
from normkata.paths import katas_dir, solutions_dir

HERE = Path(__file__).parent
LEARNER_FILE = {k.id: k.file for k in load_katas()[0]}
KATAS = list(LEARNER_FILE)

pytestmark = pytest.mark.slow


def seed_of(fixture: Fixture) -> int:
    """A fixed seed per fixture: every run of the suite sees the same inputs."""
    return zlib.crc32(fixture.id.encode()) % 100_000


def fixture_source(group: str, name: str) -> str:
    """A fixture's learner file as text, whether it is a file or an edit in mutants.py."""
    return next(f.source for f in all_fixtures() if f.group == group and f.name == name)


def all_fixtures() -> list[Fixture]:
    found = [fixture for kata in KATAS for fixture in kata_fixtures(kata)]
    found += [from_file("rmsnorm", "hostile", p) for p in sorted((HERE / "fixtures" / "hostile").glob("*.py"))]
    return found


def grade(service: Grader, kata: str, file: Path, *, seed: int, timeout: float = 10.0) -> tuple[int, dict]:
    """The exit code `normkata grade` would give, and its --json object."""
    result = service.grade(kata, file, seed=seed, timeout=timeout)
    return (0 if result.passed else 1), result.to_json()


def _problems(result: dict) -> list[str]:
    return [f"{c['name']}: {c['message']}" for c in result["cases"] if c["status"] in ("failed", "error")][:3]


@pytest.mark.parametrize("fixture", all_fixtures(), ids=lambda f: f.id)
def test_fixture_verdict(fixture: Fixture, grading_service: Grader, tmp_path: Path) -> None:
    name = f"{fixture.name}.py" if fixture.group == "hostile" else LEARNER_FILE[fixture.kata]
    learner_file = tmp_path / name
    source = fixture.source.replace("{SOLUTION}", str(solutions_dir() / "rmsnorm.py"))
    source = source.replace("{SUITE}", str(katas_dir() / "rmsnorm" / "suite.py"))
    learner_file.write_text(source, encoding="utf-8")
    timeout = 1.0 if "loops" in name else 10.0  # a loop is stopped at each case deadline, a few times
    code, result = grade(grading_service, fixture.kata, learner_file, seed=seed_of(fixture), timeout=timeout)
    failing = [c for c in result["cases"] if c["status"] in ("failed", "error")]
    if fixture.passes:
        assert code == 0 and result["passed"], _problems(result)
        assert result["counts"]["failed"] == result["counts"]["error"] == 0
        return
    assert code == 1 and not result["passed"] and failing
    if fixture.diagnosis:
        assert fixture.diagnosis in [d["id"] for d in result["diagnosis"]], _problems(result)
    if fixture.message:
        assert any(fixture.message in c["message"] for c in failing), _problems(result)


def test_enough_fixtures_per_kata() -> None:
    fixtures = all_fixtures()
    for kata in KATAS:
        mine = [f for f in fixtures if f.kata == kata and f.group != "hostile"]
        assert sum(f.passes for f in mine) >= 2, kata
        assert sum(not f.passes for f in mine) >= 8, kata


@pytest.mark.parametrize("kata", KATAS)
def test_reference_passes_and_starter_scores_zero(kata: str, grading_service: Grader, tmp_path: Path) -> None:
    reference = tmp_path / "reference" / LEARNER_FILE[kata]
    reference.parent.mkdir()
    shutil.copy(solutions_dir() / f"{kata}.py", reference)
    for seed in (1, 2):
        code, result = grade(grading_service, kata, reference, seed=seed)
        assert code == 0 and result["passed"], _problems(result)
        assert result["seed"] == seed
        cuda_cases = [c for c in result["cases"] if c["category"] == "CUDA"]
        expected = "passed" if torch.cuda.is_available() else "skipped"
        # A kernel kata's speed case is reported as a skip on a GPU: it is never scored.
        assert cuda_cases and all(c["status"] == expected for c in cuda_cases if not c["name"].startswith("speed"))
    starter = tmp_path / LEARNER_FILE[kata]
    shutil.copy(katas_dir() / kata / "starter.py", starter)
    code, result = grade(grading_service, kata, starter, seed=1)
    assert code == 1 and not result["passed"]
    assert result["score"] == 0 and result["max_score"] > 0
