"""Real code graded as it would really run, and diagnoses that name the real mistake and only it.

The katas' fixtures prove each verdict and named mistake (test_fixtures.py, `content check
--deep`); here, what a fixture header cannot say: that a DyT with a () alpha gets exactly one
finding, its shape, and that the learning loop schedules only what that grade named.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from normkata.content.katas import get_kata
from normkata.content.links import load_links
from normkata.grading.client import Grader
from normkata.paths import katas_dir
from tests.conftest import invoke

pytestmark = pytest.mark.slow

ZERO_DIM_ALPHA = katas_dir() / "dyt" / "fixtures" / "alpha_zero_dim.py"


def test_a_zero_dim_alpha_gets_one_finding_its_shape(grading_service: Grader, tmp_path: Path) -> None:
    learner = tmp_path / "dyt.py"
    learner.write_text(ZERO_DIM_ALPHA.read_text(encoding="utf-8"), encoding="utf-8")
    result = grading_service.grade("dyt", learner, seed=7)
    assert not result.passed
    assert [d.id for d in result.diagnosis] == ["dyt-alpha-zero-dim"]
    failing = [c for c in result.cases if c.status.value in ("failed", "error")]
    assert failing and all("alpha has shape ()" in c.message for c in failing), [c.message for c in failing]
    # The authors' (1,) alpha loads into it as torch loads it: every forward case judges its forward.
    assert all(c.status.value == "passed" for c in result.cases if c.category.value in ("forward fp32", "shapes"))


def test_the_learning_loop_schedules_only_what_the_grade_named(runner, db, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    learner = tmp_path / "dyt.py"
    learner.write_text(ZERO_DIM_ALPHA.read_text(encoding="utf-8"), encoding="utf-8")
    result = invoke(runner, ["grade", "dyt", "--file", str(learner), "--seed", "7", "--json"])
    assert result.exit_code == 1
    assert [d["id"] for d in json.loads(result.stdout)["diagnosis"]] == ["dyt-alpha-zero-dim"]
    links, _ = load_links()
    scheduled = {row[0] for row in db.execute("SELECT item_id FROM srs")}
    assert set(links["dyt-alpha-zero-dim"]) <= scheduled
    others = {item for m in get_kata("dyt").misconceptions if m.id != "dyt-alpha-zero-dim" for item in links[m.id]}
    assert not (scheduled & (others - set(links["dyt-alpha-zero-dim"])))


def _graded(service: Grader, kata: str, source: Path, tmp_path: Path) -> object:
    folder = tmp_path / source.stem
    folder.mkdir()
    learner = folder / get_kata(kata).file
    learner.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return service.grade(kata, learner, seed=11)


@pytest.mark.extra("triton")
@pytest.mark.parametrize(
    ("trick", "control"), [("bug_reads_via_atomic_cas", "bug_no_mask"), ("bug_repairs_margins", "bug_store_unmasked")]
)
def test_a_trick_on_the_guard_fails_as_its_control_does(
    trick: str, control: str, grading_service: Grader, tmp_path: Path
) -> None:
    """Unmasked reads through tl.atomic_cas fail as the same reads through tl.load do; a store
    past y fails the same whether or not the launcher restores what lay after y."""
    fixtures = katas_dir() / "triton_rmsnorm" / "fixtures"
    tricked, plain = (
        _graded(grading_service, "triton_rmsnorm", fixtures / f"{name}.py", tmp_path) for name in (trick, control)
    )
    for result in (tricked, plain):
        assert not result.passed and [d.id for d in result.diagnosis] == ["triton-no-mask"]  # type: ignore[attr-defined]
    assert tricked.score == plain.score  # type: ignore[attr-defined]


@pytest.mark.extra("triton")
def test_a_launcher_that_never_launches_fails_every_case(grading_service: Grader, tmp_path: Path) -> None:
    from normkata.paths import solutions_dir

    hostile = _graded(
        grading_service,
        "triton_rmsnorm",
        katas_dir() / "triton_rmsnorm" / "fixtures" / "bug_launcher_computes_in_torch.py",
        tmp_path,
    )
    control = _graded(grading_service, "triton_rmsnorm", solutions_dir() / "triton_rmsnorm.py", tmp_path)
    assert control.passed  # type: ignore[attr-defined]
    assert hostile.score == 0  # type: ignore[attr-defined]
    scored = [c for c in hostile.cases if c.category.value not in ("integrity", "CUDA")]  # type: ignore[attr-defined]
    assert scored and all("no @triton.jit kernel ran" in c.message for c in scored)
