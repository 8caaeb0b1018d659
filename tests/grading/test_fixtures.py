"""The graders' own tests: every fixture goes through `normkata grade --file`, the learner's path.

Each fixture's first line says what must happen: `# expect: pass`, or `# expect: fail`,
optionally with `diagnosis=ID` (a misconception the report must name) or `message=TEXT`
(text some case's message must contain).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from normkata.paths import katas_dir, solutions_dir
from tests.conftest import invoke

FIXTURES = Path(__file__).parent / "fixtures"
KATAS = ("rmsnorm", "layernorm", "batchnorm", "prenorm")
LEARNER_FILE = {kata: f"{kata}.py" for kata in KATAS}

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Fixture:
    kata: str
    path: Path
    passes: bool
    diagnosis: str | None
    message: str | None

    @property
    def id(self) -> str:
        return f"{self.path.parent.name}/{self.path.stem}"


def _parse(kata: str, path: Path) -> Fixture:
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("# expect: "), f"{path}: first line must say what to expect"
    words = header.removeprefix("# expect: ")
    verdict, _, rest = words.partition(" ")
    diagnosis = rest.removeprefix("diagnosis=") if rest.startswith("diagnosis=") else None
    message = rest.removeprefix("message=") if rest.startswith("message=") else None
    return Fixture(kata, path, verdict == "pass", diagnosis, message)


def _all() -> list[Fixture]:
    found = [_parse(kata, p) for kata in KATAS for p in sorted((FIXTURES / kata).glob("*.py"))]
    found += [_parse("rmsnorm", p) for p in sorted((FIXTURES / "hostile").glob("*.py"))]
    return found


def _grade(runner, kata: str, file: Path, timeout: float = 10.0) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    result = invoke(runner, ["grade", kata, "--file", str(file), "--json", "--timeout", str(timeout)])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("fixture", _all(), ids=lambda f: f.id)
def test_fixture_verdict(fixture: Fixture, runner, tmp_path: Path) -> None:
    name = fixture.path.name if fixture.path.parent.name == "hostile" else LEARNER_FILE[fixture.kata]
    learner_file = tmp_path / name
    source = fixture.path.read_text(encoding="utf-8")
    source = source.replace("{SOLUTION}", str(solutions_dir() / "rmsnorm.py"))
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
        mine = [f for f in fixtures if f.kata == kata and f.path.parent.name == kata]
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
