"""The graders' own tests: every fixture goes through `normkata grade --file`, the learner's path.

Each fixture's first line says what must happen: `# expect: pass`, or `# expect: fail`,
optionally with `diagnosis=ID` (a misconception the report must name) or `message=TEXT`
(text some case's message must contain). Fixtures that differ from a correct implementation
by one small edit are kept as that edit in mutants.py, with the same expectation.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from normkata.paths import katas_dir, solutions_dir
from tests.conftest import invoke
from tests.grading.mutants import MUTANTS

FIXTURES = Path(__file__).parent / "fixtures"
KATAS = ("rmsnorm", "layernorm", "batchnorm", "prenorm")
LEARNER_FILE = {kata: f"{kata}.py" for kata in KATAS}

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Fixture:
    kata: str
    group: str  # the kata, or "hostile"
    name: str
    source: str
    passes: bool
    diagnosis: str | None
    message: str | None

    @property
    def id(self) -> str:
        return f"{self.group}/{self.name}"


def _expectation(words: str) -> tuple[bool, str | None, str | None]:
    verdict, _, rest = words.partition(" ")
    diagnosis = rest.removeprefix("diagnosis=") if rest.startswith("diagnosis=") else None
    message = rest.removeprefix("message=") if rest.startswith("message=") else None
    return verdict == "pass", diagnosis, message


def _from_file(kata: str, path: Path) -> Fixture:
    source = path.read_text(encoding="utf-8")
    header = source.splitlines()[0]
    assert header.startswith("# expect: "), f"{path}: first line must say what to expect"
    return Fixture(kata, path.parent.name, path.stem, source, *_expectation(header.removeprefix("# expect: ")))


def _mutant(kata: str, name: str, expect: str, comment: str, base: str, edits: list[tuple[str, str]]) -> Fixture:
    start = solutions_dir() / f"{kata}.py" if base == "solution" else FIXTURES / kata / f"{base}.py"
    text = start.read_text(encoding="utf-8").split("\n", 2)[2]  # drop the docstring or the expect header
    for old, new in edits:
        assert text.count(old) == 1, f"{kata}/{name}: edit does not apply once: {old!r}"
        text = text.replace(old, new, 1)
    return Fixture(kata, kata, name, f"# {comment}\n{text}", *_expectation(expect))


def fixture_source(group: str, name: str) -> str:
    """A fixture's learner file as text, whether it is a file or an edit in mutants.py."""
    return next(f.source for f in _all() if f.group == group and f.name == name)


def _all() -> list[Fixture]:
    found = [_from_file(kata, p) for kata in KATAS for p in sorted((FIXTURES / kata).glob("*.py"))]
    found += [_mutant(*entry) for entry in MUTANTS]
    found += [_from_file("rmsnorm", p) for p in sorted((FIXTURES / "hostile").glob("*.py"))]
    return found


def _grade(runner, kata: str, file: Path, timeout: float = 10.0) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    result = invoke(runner, ["grade", kata, "--file", str(file), "--json", "--timeout", str(timeout)])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("fixture", _all(), ids=lambda f: f.id)
def test_fixture_verdict(fixture: Fixture, runner, tmp_path: Path) -> None:
    name = f"{fixture.name}.py" if fixture.group == "hostile" else LEARNER_FILE[fixture.kata]
    learner_file = tmp_path / name
    source = fixture.source.replace("{SOLUTION}", str(solutions_dir() / "rmsnorm.py"))
    source = source.replace("{SUITE}", str(katas_dir() / "rmsnorm" / "suite.py"))
    learner_file.write_text(source, encoding="utf-8")
    code, result = _grade(runner, fixture.kata, learner_file, timeout=2.0 if "loops" in name else 10.0)
    failing = [c for c in result["cases"] if c["status"] in ("failed", "error")]
    if fixture.passes:
        assert code == 0 and result["passed"], [c["message"] for c in failing][:3]
        assert result["counts"]["failed"] == result["counts"]["error"] == 0
        return
    assert code == 1 and not result["passed"] and failing
    if fixture.diagnosis:
        assert fixture.diagnosis in [d["id"] for d in result["diagnosis"]], [c["message"] for c in failing][:3]
    if fixture.message:
        assert any(fixture.message in c["message"] for c in failing), [c["message"] for c in failing][:3]


def test_enough_fixtures_per_kata() -> None:
    fixtures = _all()
    for kata in KATAS:
        mine = [f for f in fixtures if f.group == kata]
        assert sum(f.passes for f in mine) >= 2, kata
        assert sum(not f.passes for f in mine) >= 8, kata


@pytest.mark.parametrize("kata", KATAS)
def test_reference_passes_and_starter_fails(kata: str, runner, tmp_path: Path) -> None:
    reference = tmp_path / "reference" / LEARNER_FILE[kata]
    reference.parent.mkdir()
    shutil.copy(solutions_dir() / f"{kata}.py", reference)
    code, result = _grade(runner, kata, reference)
    assert code == 0 and result["passed"], [c["message"] for c in result["cases"] if c["status"] != "passed"][:3]
    assert result["counts"]["skipped"] > 0  # the CUDA cases, on a machine without a GPU
    starter = tmp_path / LEARNER_FILE[kata]
    shutil.copy(katas_dir() / kata / "starter.py", starter)
    code, result = _grade(runner, kata, starter)
    assert code == 1 and not result["passed"]
    assert result["counts"]["error"] > result["counts"]["passed"]
