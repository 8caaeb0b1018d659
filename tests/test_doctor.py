"""`normkata doctor`: each problem it exists to find is found, named, and given a fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from normkata.content.katas import load_katas
from tests.conftest import invoke

FULL = {"level": "full", "active": ["no_new_privs", "filesystem (Landlock ABI 5)"], "missing": []}


@pytest.fixture
def confined(monkeypatch: pytest.MonkeyPatch) -> dict:
    """The sandbox probe answers as a fully confined machine would (the real probe has its own test)."""
    probe = dict(FULL)
    monkeypatch.setattr("normkata.advice.doctor.probe_confinement", lambda: probe)
    return probe


def doctor_json(runner, *args: str) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    result = invoke(runner, ["doctor", "--json", *args])
    return result.exit_code, json.loads(result.stdout)


def test_quick_checks_on_a_healthy_home(runner, confined) -> None:
    code, report = doctor_json(runner, "--no-katas")
    assert code == 0, report["problems"]
    assert report["ok"] is True and report["problems"] == []
    assert report["torch"]["version"].startswith("2.") and report["torch"]["build"] in ("cpu", "cuda")
    assert report["storage"]["database_check"] == "not created yet"
    assert report["storage"]["bank_cache"] in ("fresh", "rebuilt")
    assert set(report) == {"ok", "python", "torch", "sandbox", "storage", "terminal", "katas", "problems", "notes"}


def test_the_real_probe_confines_a_process_as_a_worker_is(runner) -> None:
    from normkata.advice.doctor import probe_confinement
    from normkata.grading.sandbox import confine  # noqa: F401  the probe runs this very function

    probe = probe_confinement()
    assert probe["level"] in ("full", "partial", "off")
    assert all(isinstance(p, str) for p in probe["active"] + probe["missing"])


def test_a_missing_protection_is_a_problem_with_its_meaning(runner, confined) -> None:
    confined.update(level="partial", missing=["filesystem (this kernel has no Landlock)"])
    code, report = doctor_json(runner, "--no-katas")
    assert code == 1
    (missing,) = report["sandbox"]["missing"]
    assert missing["protection"] == "filesystem" and missing["why"] == "filesystem (this kernel has no Landlock)"
    assert "read what your user can read" in missing["means"]
    (problem,) = report["problems"]
    assert problem["what"].startswith("sandbox: filesystem (this kernel has no Landlock)")
    assert "Landlock" in problem["fix"]


def test_a_damaged_store_is_reported_and_left_alone(runner, confined, isolated_home: Path) -> None:
    isolated_home.mkdir(parents=True)
    database = isolated_home / "normkata.db"
    database.write_bytes(b"this is not a database" * 100)
    code, report = doctor_json(runner, "--no-katas")
    assert code == 1
    assert report["storage"]["database_check"] == "file is not a database"
    (problem,) = report["problems"]
    assert problem["what"] == f"progress database {database} is damaged: file is not a database"
    assert database.read_bytes() == b"this is not a database" * 100  # diagnosed, not repaired


def test_cuda_asked_for_on_a_cpu_build(runner, confined) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    code, report = doctor_json(runner, "--device", "cuda", "--kata", "rmsnorm")
    assert code == 1 and report["katas"] == []
    assert report["problems"][0]["what"].startswith("--device cuda: torch ")


def test_an_unknown_kata_is_bad_input(runner) -> None:
    result = invoke(runner, ["doctor", "--kata", "rmsnrom"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines()[-1].startswith("Error: --kata: no kata 'rmsnrom'")


@pytest.mark.slow
@pytest.mark.one_off_runner  # doctor's one-off path is the real one here
def test_references_pass_and_starters_fail_through_both_paths(runner, confined) -> None:
    code, report = doctor_json(runner, "--kata", "rmsnorm", "--device", "cpu")
    assert code == 0, report["problems"]
    rows = [(k["kata"], k["file"], k["path"], k["passed"]) for k in report["katas"]]
    assert rows == [
        ("rmsnorm", "reference", "one-off", True),
        ("rmsnorm", "reference", "service", True),
        ("rmsnorm", "starter", "service", False),
    ]
    assert all(k["seconds"] > 0 and k["cuda_cases"] == 0 and k["device"] == "cpu" for k in report["katas"])
    assert report["katas"][0]["score"] == report["katas"][0]["max_score"] > 0


@pytest.mark.slow
@pytest.mark.one_off_runner  # doctor's one-off path is the real one here
def test_a_reference_that_fails_is_reported(runner, confined, tmp_path: Path, monkeypatch) -> None:
    wrong = tmp_path / "solutions"
    wrong.mkdir()
    source = Path(__file__).parents[1] / "solutions" / "rmsnorm.py"
    # eps added outside the square root: a classic mistake, so this "reference" must fail.
    text = source.read_text(encoding="utf-8")
    broken = text.replace("torch.rsqrt(", "1 / (").replace(" + self.eps)", ".sqrt() + self.eps)")
    assert broken != text
    (wrong / "rmsnorm.py").write_text(broken, encoding="utf-8")
    monkeypatch.setattr("normkata.content.katas.solutions_dir", lambda: wrong)
    code, report = doctor_json(runner, "--kata", "rmsnorm", "--device", "cpu")
    assert code == 1
    assert [p["what"].split(":")[0] for p in report["problems"]] == ["rmsnorm", "rmsnorm"]  # one-off and service
    assert report["problems"][0]["what"].startswith("rmsnorm: the reference fails its suite on cpu (one-off)")


def test_another_triton_release_is_a_problem_saying_the_interpreter_differs(runner, confined, monkeypatch) -> None:
    """Under Triton 3.6's interpreter a correct kernel (a loop over blocks) fails; 3.9.0 is what the
    kernel katas were tested with. A learner with another release is told so, and what to install."""
    monkeypatch.setattr("normkata.advice.doctor._triton_version", lambda: "3.6.0")
    monkeypatch.setattr("normkata.advice.doctor._triton", lambda: "triton 3.6.0, the guard was tested with 3.9.0: ...")
    code, report = doctor_json(runner, "--no-katas")
    assert code == 1 and report["torch"]["triton_version"] == "3.6.0"
    (problem,) = report["problems"]
    assert problem["what"].startswith("kernel katas: triton 3.6.0 is not the release they were tested with (3.9.0)")
    assert "interpreter behaves differently from one release to another" in problem["what"]
    assert problem["fix"].startswith('pip install "normkata[triton]", which pins triton==3.9.0')
    shown = invoke(runner, ["doctor", "--no-katas"])
    assert shown.exit_code == 1 and 'what to do: pip install "normkata[triton]"' in shown.stdout


def test_the_tested_triton_or_none_is_no_problem(runner, confined, monkeypatch) -> None:
    from normkata.grading.messages import TESTED_TRITON

    for version in (TESTED_TRITON, None):
        monkeypatch.setattr("normkata.advice.doctor._triton_version", lambda v=version: v)
        code, report = doctor_json(runner, "--no-katas")
        assert code == 0 and report["problems"] == [], report["problems"]


@pytest.mark.slow
def test_an_optional_extra_not_installed_is_a_note_not_a_problem(runner, confined, monkeypatch) -> None:
    """The README's quick start installs no extra: doctor there exits 0, saying what the extra
    would enable and the one command that adds it, and grades every other kata."""
    monkeypatch.setattr("normkata.extras.Extra.installed", lambda self: self.name != "triton")
    code, report = doctor_json(
        runner, "--kata", "triton_rmsnorm", "--kata", "triton_rmsnorm_backward", "--kata", "rmsnorm", "--device", "cpu"
    )
    assert code == 0, report["problems"]
    assert report["notes"] == [
        {
            "what": "optional extra 'triton' not installed: it would enable the kernel katas (Triton 3.9.0's interpreter "
            "runs them on any CPU); not graded here: triton_rmsnorm, triton_rmsnorm_backward",
            "how": 'pip install "normkata[triton]"',
        }
    ]
    assert {k["kata"] for k in report["katas"]} == {"rmsnorm"}
    monkeypatch.setattr("normkata.extras.Extra.installed", lambda self: False)
    shown = invoke(runner, ["doctor", "--kata", "triton_rmsnorm"])
    assert shown.exit_code == 0 and "All is well." in shown.stdout
    assert shown.stdout.count("note: optional extra") == 3 and 'pip install "normkata[mcp]"' in shown.stdout
    assert 'pip install "normkata[notebook]"' in shown.stdout


@pytest.mark.parametrize(
    ("error", "advice"),
    [
        ("input", "run `normkata content check --deep --kata rmsnorm`"),
        ("timed out", "this machine was too busy for the grade's time limit"),
        ("did not start", 'check that `python -c "import torch, pytest"` works'),
        # Told by the error's type, not its words: a failure that quotes another's text is still a failure.
        ("failed: grading took longer than a worker could", "report this with the output of `normkata doctor"),
    ],
)
def test_each_grading_failure_gets_its_own_advice(runner, confined, monkeypatch, error: str, advice: str) -> None:
    from normkata.errors import InputError
    from normkata.grading.errors import GraderDidNotStart, GraderError, GraderTimedOut

    raised = {
        "input": InputError("suite.py: broken"),
        "timed out": GraderTimedOut("grading took longer than 60 s and was stopped"),
        "did not start": GraderDidNotStart("the grading service did not start: ImportError"),
    }

    def failing_grade(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise raised.get(error, GraderError(error))

    class NoService:  # the failure is the grade's; no grading service is started for it
        def __enter__(self):  # type: ignore[no-untyped-def]
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        grade = staticmethod(failing_grade)

    monkeypatch.setattr("normkata.grading.client.grade_once", failing_grade)
    monkeypatch.setattr("normkata.grading.client.Grader", NoService)
    code, report = doctor_json(runner, "--kata", "rmsnorm", "--device", "cpu")
    assert code == 1
    assert [p["what"].split(":")[0] for p in report["problems"]] == ["rmsnorm"] * 3
    assert all(advice in p["fix"] for p in report["problems"]), report["problems"]


def test_the_kata_table_keeps_every_name_whole_at_80_columns() -> None:
    """Names were cut to `groupno…` and `triton_…` (twice) at 80 columns."""
    import io

    from rich.console import Console

    from normkata.advice.doctor import GradeCheck
    from normkata.commands.doctor import kata_table

    checks = [
        GradeCheck(kata, file, "cpu", True, 45, 45, 12.34, 19, "full", path)
        for kata in [k.id for k in load_katas()[0]]
        for file, path in (("reference", "one-off"), ("starter", "service"))
    ]
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(kata_table(checks))
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    rule = next(number for number, line in enumerate(lines) if line.startswith("━"))  # under the header
    firsts = [line.split()[0] for line in lines[rule + 1 :]]
    assert firsts == [check.kata for check in checks]
