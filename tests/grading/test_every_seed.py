"""A correct file passes on every seed: each kata's reference and every correct fixture graded on
many seeds through the warm grading service (docs/grading.md, "A correct file passes on
every seed"). A failure names the file, the seed (`normkata grade KATA --seed N` repeats it), the
case and its message.

The seeds are fixed per file (a failure reproduces), different for every file and from the one
seed tests/grading/test_fixtures.py grades each fixture with: 10 per reference and 3 per correct
fixture, 245 grades in all through one warm service.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from normkata.content.katas import load_katas
from normkata.grading.client import Grader
from normkata.grading.fixtures import kata_fixtures
from normkata.paths import solutions_dir

LEARNER_FILE = {k.id: k.file for k in load_katas()[0]}
REFERENCE_SEEDS = 10
FIXTURE_SEEDS = 3

pytestmark = pytest.mark.slow


def seeds_for(name: str, count: int) -> list[int]:
    """`count` seeds of their own for the file called `name`, spread over [0, 100000)."""
    start = zlib.crc32(f"every-seed/{name}".encode()) % 100_000
    return [(start + 7_919 * k) % 100_000 for k in range(count)]


def correct_files(kata: str) -> list[tuple[str, str, int]]:
    """(name, source, how many seeds) for the reference and each passing fixture of `kata`."""
    files = [(f"solutions/{kata}.py", (solutions_dir() / f"{kata}.py").read_text(encoding="utf-8"), REFERENCE_SEEDS)]
    files += [(fixture.id, fixture.source, FIXTURE_SEEDS) for fixture in kata_fixtures(kata) if fixture.passes]
    return files


@pytest.mark.parametrize("kata", list(LEARNER_FILE))
def test_correct_files_pass_on_every_seed(kata: str, grading_service: Grader, tmp_path: Path) -> None:
    failures = []
    for index, (name, source, count) in enumerate(correct_files(kata)):
        learner_file = tmp_path / str(index) / LEARNER_FILE[kata]
        learner_file.parent.mkdir()
        learner_file.write_text(source, encoding="utf-8")
        for seed in seeds_for(name, count):
            result = grading_service.grade(kata, learner_file, seed=seed)
            failures += [
                f"{name} --seed {seed}: {case.name}: {case.message}"
                for case in result.cases
                if case.status.value in ("failed", "error")
            ]
    assert not failures, "\n".join(failures[:10])


def test_seeds_differ_per_file() -> None:
    assert seeds_for("a", 3) != seeds_for("b", 3)
    assert len(set(seeds_for("a", REFERENCE_SEEDS))) == REFERENCE_SEEDS
