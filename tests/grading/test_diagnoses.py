"""A named mistake is named only when its signature is present, and explains every case it
causes: the report leads with it and lists only the failures it does not account for.
"""

from __future__ import annotations

import zlib
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from normkata.content.katas import load_katas
from normkata.grading.client import Grader
from normkata.grading.contract import GradeResult, Status
from normkata.grading.fixtures import Fixture, kata_fixtures
from normkata.grading.report import render

KATAS = {k.id: k for k in load_katas()[0]}
#: Katas whose class has a forward (an nn.Module or an autograd Function): the wrapper below
#: scales what forward returns.
SCALED_KATAS = [
    "rmsnorm",
    "layernorm",
    "batchnorm",
    "prenorm",
    "groupnorm",
    "fused_add_rmsnorm",
    "qknorm_attention",
    "rmsnorm_backward",
    "layernorm_backward",
    "batchnorm_backward",
]

pytestmark = pytest.mark.slow

#: Appended to a correct file: every output 0.1% too large. No misconception has that signature.
SCALED = """

def _nk_scaled(out):
    return tuple(_nk_scaled(o) for o in out) if isinstance(out, tuple) else out * 1.001


def _nk_scale_forward(cls):
    forward = cls.forward
    scaled = lambda first, *args, **kwargs: _nk_scaled(forward(first, *args, **kwargs))
    cls.forward = staticmethod(scaled) if "Function" in [k.__name__ for k in cls.__mro__] else scaled


_nk_scale_forward({cls})
"""


def fixture(kata: str, name: str) -> Fixture:
    return next(f for f in kata_fixtures(kata) if f.name == name)


def grade(service: Grader, kata: str, source: str, folder: Path, seed: int) -> GradeResult:
    file = folder / KATAS[kata].file
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(source, encoding="utf-8")
    return service.grade(kata, file, seed=seed)


def report(result: GradeResult) -> str:
    console = Console(file=StringIO(), width=200, color_system=None)
    render(console, result)
    return console.file.getvalue()  # type: ignore[attr-defined]


def correct_styles() -> list[Fixture]:
    return [f for kata in SCALED_KATAS for f in kata_fixtures(kata) if f.passes]


@pytest.mark.parametrize("style", correct_styles(), ids=lambda f: f.id)
def test_no_mistake_named_without_its_signature(style: Fixture, grading_service: Grader, tmp_path: Path) -> None:
    """Every correct style, with all its outputs 0.1% off: it fails, and no misconception is named."""
    source = style.source + SCALED.format(cls=KATAS[style.kata].classes[0])
    result = grade(grading_service, style.kata, source, tmp_path, zlib.crc32(style.id.encode()) % 1000)
    assert not result.passed
    assert result.diagnosis == [], [(c.name, c.diagnosis) for c in result.cases if c.diagnosis]


@pytest.mark.parametrize(
    ("kata", "name", "mistake"),
    [
        ("rmsnorm", "buggy_eps_outside_sqrt", "rms-eps-outside-sqrt"),
        ("layernorm", "buggy_unbiased_variance", "ln-unbiased-variance"),
    ],
)
@pytest.mark.parametrize("seed", [7, 1234])
def test_one_mistake_one_finding(
    kata: str, name: str, mistake: str, seed: int, grading_service: Grader, tmp_path: Path
) -> None:
    """Every case the mistake fails is attributed to it; the report has no other failure line."""
    result = grade(grading_service, kata, fixture(kata, name).source, tmp_path, seed)
    failing = [c for c in result.cases if c.status in (Status.FAILED, Status.ERROR)]
    assert failing and [d.id for d in result.diagnosis] == [mistake]
    assert [c.name for c in failing if c.diagnosis != mistake] == []
    text = report(result)
    assert text.count("Recognised mistake") == 1
    assert not [line for line in text.splitlines() if line.startswith("✗ ")]  # no failure line of its own
    assert "no named mistake accounts for" not in text


def test_float64_cases_are_not_forward_fp32(grading_service: Grader, tmp_path: Path) -> None:
    kata = "layernorm_backward"
    result = grade(grading_service, kata, KATAS[kata].solution.read_text(encoding="utf-8"), tmp_path, 3)
    float64 = [c for c in result.cases if c.name.startswith("float64")]
    assert float64 and {c.category.value for c in float64} == {"float64"}
