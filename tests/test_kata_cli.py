"""`normkata kata`, `hint`, `solution` and `grade` through CliRunner, as a new learner uses them."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.cells import cell_len

from normkata.content.katas import load_katas
from normkata.paths import solutions_dir
from tests.conftest import invoke
from tests.grading.test_fixtures import fixture_source

FIXTURES = Path(__file__).parents[1] / "katas"
CATALOG = [kata.id for kata in load_katas()[0]]
SPEC_KEYS = {
    "kata",
    "file",
    "passed",
    "score",
    "max_score",
    "counts",
    "cases",
    "diagnosis",
    "seed",
    "sandbox",
    "duration_s",
    "torch",
    "lang",
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path / "workspace"  # NORMKATA_WORKSPACE, set by conftest


def test_kata_list_shows_all_katas(runner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    result = invoke(runner, ["kata"])
    assert result.exit_code == 0
    for kata in CATALOG:
        assert kata in result.stdout
    assert result.stdout.count("not started") == len(CATALOG)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_kata_list_at_80_columns_is_one_line_per_kata_under_a_header(runner, monkeypatch, lang: str) -> None:
    """16 katas took 68 rows at 80 columns, their titles wrapped into 13 columns mid-word."""
    monkeypatch.setenv("COLUMNS", "80")
    lines = invoke(runner, ["kata", "--lang", lang]).stdout.splitlines()
    assert len(lines) == len(CATALOG) + 1, "\n".join(lines)
    assert [line.split()[0] for line in lines[1:]] == CATALOG  # every id whole, in the catalog's order
    assert max(cell_len(line) for line in lines) <= 80
    for line in lines[1:]:  # a status in every row: not started, or the extra it needs first
        assert re.search(r"not started|needs triton|未开始|需要 triton", line), line


def test_kata_json_lists_the_catalog_with_status(runner, tmp_path: Path) -> None:
    assert invoke(runner, ["kata", "rmsnorm"]).exit_code == 0
    result = invoke(runner, ["kata", "--json"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert [row["id"] for row in rows] == CATALOG and len(rows) >= 10
    assert set(rows[0]) == {"id", "title", "difficulty", "minutes", "topics", "status", "best_score"}
    by_id = {row["id"]: row for row in rows}
    assert by_id["rmsnorm"]["status"] == "in progress" and by_id["layernorm"]["status"] == "not started"
    assert by_id["rmsnorm"]["title"] == "RMSNorm from scratch" and by_id["rmsnorm"]["minutes"] == 20
    assert all(isinstance(row["minutes"], int) and row["topics"] for row in rows)


def test_kata_writes_starter_once(runner, workspace, db) -> None:
    result = invoke(runner, ["kata", "rmsnorm"])
    assert result.exit_code == 0
    target = workspace / "rmsnorm.py"
    assert "RMSNorm from scratch" in result.stdout and str(target) in result.stdout.replace("\n", "")
    assert "raise NotImplementedError" in target.read_text()
    target.write_text("# my work\n")
    again = invoke(runner, ["kata", "rmsnorm"])
    assert "already exists" in " ".join(again.stdout.split()) and target.read_text() == "# my work\n"
    invoke(runner, ["kata", "rmsnorm", "--force"])
    assert "raise NotImplementedError" in target.read_text()
    kinds = [r["kind"] for r in db.execute("SELECT kind FROM kata_events WHERE kata = 'rmsnorm'")]
    assert kinds == ["started", "started", "started"]


def test_kata_in_chinese(runner) -> None:
    assert "从零实现 RMSNorm" in invoke(runner, ["kata", "rmsnorm", "--lang", "zh"]).stdout


def test_hints_go_up_three_levels(runner, db) -> None:
    outputs = [invoke(runner, ["hint", "layernorm"]).stdout for _ in range(4)]
    assert "Hint 1/3" in outputs[0] and "Hint 2/3" in outputs[1] and "Hint 3/3" in outputs[2]
    assert "biased variance" in outputs[1]
    assert "That was the last hint" in outputs[3]
    assert db.execute("SELECT COUNT(*) FROM kata_events WHERE kind = 'hint'").fetchone()[0] == 3


def test_solution_needs_confirmation_and_records_giving_up(runner, db) -> None:
    declined = invoke(runner, ["solution", "batchnorm"], "n\n")
    assert "Solution not shown" in declined.stdout and "class BatchNorm1d" not in declined.stdout
    shown = invoke(runner, ["solution", "batchnorm"], "y\n")
    assert "class BatchNorm1d" in shown.stdout
    assert db.execute("SELECT COUNT(*) FROM kata_events WHERE kind = 'gave_up'").fetchone()[0] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["grade"], "No kata to grade yet"),
        (["grade", "no-such-kata"], f"unknown kata 'no-such-kata' (known: {', '.join(CATALOG)})"),
        (["grade", "rmsnorm"], "rmsnorm.py not found: start the kata first (normkata kata rmsnorm)"),
        (["grade", "rmsnorm", "--device", "tpu"], "Invalid value for '--device'"),
        (["grade", "rmsnorm", "--timeout", "0"], "Invalid value for '--timeout'"),
    ],
)
def test_grade_usage_errors_exit_2(runner, args: list[str], message: str) -> None:
    result = invoke(runner, args)
    assert result.exit_code == 2
    assert message in result.stderr.replace("\n", " ")


@pytest.mark.slow
@pytest.mark.one_off_runner  # the learner's first grade, through a runner of its own as `normkata grade` starts it
def test_new_learner_flow(runner, workspace, db) -> None:
    """Start the kata, fail with a typical mistake, fix it, pass, then see the solution."""
    invoke(runner, ["kata", "rmsnorm"])
    learner = workspace / "rmsnorm.py"
    learner.write_text(fixture_source("rmsnorm", "buggy_eps_outside_sqrt"))
    failed = invoke(runner, ["grade"])  # the last kata worked on
    assert failed.exit_code == 1
    text = " ".join(failed.stdout.split())
    assert "NOT YET" in text
    assert "Recognised mistake: eps added outside the square root" in text
    assert text.count("Hint: Use x * rsqrt(mean(x²) + eps)") == 1  # one finding, its hint once
    assert "max abs error" in text.lower()
    shutil.copy(FIXTURES / "rmsnorm" / "fixtures" / "correct_llama_style.py", learner)
    passed = invoke(runner, ["grade"])
    assert passed.exit_code == 0
    assert "PASSED" in passed.stdout
    rows = db.execute("SELECT passed, score, max_score FROM kata_attempts ORDER BY id").fetchall()
    assert [r["passed"] for r in rows] == [0, 1] and rows[1]["score"] == rows[1]["max_score"]
    assert "passed" in invoke(runner, ["kata"]).stdout
    assert "class RMSNorm" in invoke(runner, ["solution", "rmsnorm"]).stdout  # no question asked after a pass
    assert db.execute("SELECT COUNT(*) FROM kata_events WHERE kind = 'gave_up'").fetchone()[0] == 0


@pytest.mark.slow
def test_json_gradescope_and_junit(runner, tmp_path: Path) -> None:
    learner = tmp_path / "layernorm.py"
    learner.write_text(fixture_source("layernorm", "buggy_unbiased_variance"))
    gradescope = tmp_path / "results.json"
    result = invoke(
        runner,
        ["grade", "layernorm", "--file", str(learner), "--json", "--format", "gradescope", "--output", str(gradescope)],
    )
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert set(report) == SPEC_KEYS
    assert set(report["counts"]) == {"passed", "failed", "error", "skipped"}
    assert all(set(case) == {"id", "name", "category", "status", "message", "diagnosis"} for case in report["cases"])
    rules = sum(case["category"] == "integrity" for case in report["cases"])
    assert rules == 2 and report["max_score"] == len(report["cases"]) - report["counts"]["skipped"] - rules
    assert report["diagnosis"][0]["id"] == "ln-unbiased-variance"
    scored = json.loads(gradescope.read_text())
    assert scored["score"] == report["score"]
    assert len(scored["tests"]) == len(report["cases"])  # rules and skipped cases shown without points
    assert sum(t.get("max_score", 0) for t in scored["tests"]) == report["max_score"]
    assert {t["status"] for t in scored["tests"] if "status" in t} == {"passed", "failed"}
    junit = tmp_path / "junit.xml"
    invoke(runner, ["grade", "layernorm", "--file", str(learner), "--format", "junit", "--output", str(junit)])
    suites = ET.parse(junit).getroot()
    assert suites.tag == "testsuites" and int(suites.get("failures")) == report["counts"]["failed"]
    assert sum(int(s.get("skipped")) for s in suites.iter("testsuite")) == report["counts"]["skipped"]
    assert len(list(suites.iter("testcase"))) == len(report["cases"])


@pytest.mark.slow
def test_cuda_requested_without_a_gpu_is_an_input_error(runner, tmp_path: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    learner = tmp_path / "rmsnorm.py"
    shutil.copy(solutions_dir() / "rmsnorm.py", learner)
    result = invoke(runner, ["grade", "rmsnorm", "--file", str(learner), "--device", "cuda"])
    assert result.exit_code == 2
    assert "--device cuda: CUDA is not available on this machine" in result.stderr


@pytest.mark.slow
def test_device_cpu_skips_cuda_with_reason(runner, tmp_path: Path) -> None:
    learner = tmp_path / "rmsnorm.py"
    shutil.copy(solutions_dir() / "rmsnorm.py", learner)
    report = json.loads(
        invoke(runner, ["grade", "rmsnorm", "--file", str(learner), "--device", "cpu", "--json"]).stdout
    )
    skipped = [c for c in report["cases"] if c["status"] == "skipped"]
    assert skipped and all(c["category"] == "CUDA" and c["message"] == "--device cpu" for c in skipped)


#: Words a Chinese grading report may contain: code, identifiers, formulas and units of the
#: learner's own file and of torch, never an English sentence.
CODE_WORDS = {
    "RMSNorm",
    "forward",
    "backward",
    "eps",
    "rsqrt",
    "mean",
    "keepdim",
    "True",
    "weight",
    "torch",
    "cpu",
    "cuda",
    "CUDA",
    "float",
    "fp",
    "bf",
    "rtol",
    "atol",
    "rmsnorm",
    "py",
    "pow",
    "sqrt",
    "x",
    "e",
    "N",
    "state_dict",
    "nn",
    "Parameter",
    "dtype",
    "seed",
    "json",
    "grade",
    "normkata",
}


@pytest.mark.slow
def test_chinese_report_has_no_english_outside_code(runner, tmp_path: Path) -> None:
    learner = tmp_path / "rmsnorm.py"
    learner.write_text(fixture_source("rmsnorm", "buggy_eps_outside_sqrt"))
    result = invoke(runner, ["--lang", "zh", "grade", "rmsnorm", "--file", str(learner), "--seed", "3"])
    assert result.exit_code == 1
    assert "识别出的常见错误：eps 加在了平方根外面" in result.stdout
    # Code: what is in backticks, and a command the terminal shows without them (up to its bracket).
    prose = re.sub(r"`[^`]*`|normkata [a-z][^（）()\n]*", "", result.stdout)
    english = set(re.findall(r"[A-Za-z_]{2,}", prose)) - CODE_WORDS
    assert not english, english


@pytest.mark.slow
def test_missing_buffer_is_one_finding_and_the_real_mistake_is_named(runner, tmp_path: Path) -> None:
    learner = tmp_path / "batchnorm.py"
    learner.write_text(fixture_source("realworld/batchnorm", "no_num_batches_tracked_unbiased_output"))
    report = json.loads(invoke(runner, ["grade", "batchnorm", "--file", str(learner), "--json", "--seed", "4"]).stdout)
    mentions = [c for c in report["cases"] if "num_batches_tracked" in c["message"]]
    assert len(mentions) == 1 and mentions[0]["category"] == "module state", [c["name"] for c in mentions]
    assert "register_buffer" in mentions[0]["message"]
    assert "bn-unbiased-output" in [d["id"] for d in report["diagnosis"]]


@pytest.mark.slow
def test_seed_reproduces_a_run_and_a_new_seed_draws_new_inputs(runner, tmp_path: Path, db) -> None:
    learner = tmp_path / "rmsnorm.py"
    learner.write_text(fixture_source("rmsnorm", "buggy_eps_outside_sqrt"))

    def run(seed: int) -> dict:
        return json.loads(
            invoke(runner, ["grade", "rmsnorm", "--file", str(learner), "--json", "--seed", str(seed)]).stdout
        )

    first, again, other = run(11), run(11), run(12)
    assert first["seed"] == 11 and other["seed"] == 12
    assert [c["message"] for c in first["cases"]] == [c["message"] for c in again["cases"]]
    assert [c["message"] for c in first["cases"]] != [c["message"] for c in other["cases"]]
    stored = [r["seed"] for r in db.execute("SELECT seed FROM kata_attempts ORDER BY id")]
    assert stored == [11, 11, 12]


@pytest.mark.slow
@pytest.mark.one_off_runner  # `grade --list` through a runner of its own, as the command starts it
def test_grade_list_shows_every_case_by_category(runner) -> None:
    result = invoke(runner, ["grade", "rmsnorm", "--list"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Cases of rmsnorm (inputs are drawn from each run's seed)")
    assert re.search(r"^module state \(4\)$", result.stdout, re.M)
    assert "  weight parameter and state dict" in result.stdout
    assert re.search(r"^low precision \(\d+\)$", result.stdout, re.M)


@pytest.mark.slow
def test_grade_k_runs_the_matching_cases_and_is_not_recorded(runner, tmp_path: Path, db) -> None:
    learner = tmp_path / "rmsnorm.py"
    learner.write_text(fixture_source("rmsnorm", "buggy_eps_outside_sqrt"))
    result = invoke(runner, ["grade", "rmsnorm", "--file", str(learner), "--json", "-k", "custom eps", "--seed", "5"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    scored = [c["name"] for c in report["cases"] if c["category"] != "integrity"]
    assert scored == ["custom eps [0.01]", "custom eps [1e-06]"]
    assert "rms-eps-outside-sqrt" in [d["id"] for d in report["diagnosis"]]
    assert db.execute("SELECT COUNT(*) FROM kata_attempts").fetchone()[0] == 0
    nothing = invoke(runner, ["grade", "rmsnorm", "--file", str(learner), "-k", "no such case"])
    assert nothing.exit_code == 2
    assert "-k no such case: no case of rmsnorm matches (grade --list shows them)" in nothing.stderr


@pytest.mark.slow
def test_a_crash_points_at_the_learners_line_and_all_shows_every_failure(runner, tmp_path: Path) -> None:
    learner = tmp_path / "rmsnorm.py"
    source = (solutions_dir() / "rmsnorm.py").read_text()
    broken = source.replace(
        "        x = x * torch.rsqrt(",
        "        assert x.shape[-1] != 1, 'no size-1 rows'\n        x = x * torch.rsqrt(",
    )
    learner.write_text(broken)
    line = broken.splitlines().index("        assert x.shape[-1] != 1, 'no size-1 rows'") + 1
    short = invoke(runner, ["grade", "rmsnorm", "--file", str(learner), "--seed", "2"])
    assert short.exit_code == 1
    assert f"{learner}:{line}" in short.stdout.replace("\n", "")
    every = invoke(runner, ["grade", "rmsnorm", "--file", str(learner), "--seed", "2", "--all"])
    failing = json.loads(invoke(runner, ["grade", "rmsnorm", "--file", str(learner), "--seed", "2", "--json"]).stdout)
    bad = [c for c in failing["cases"] if c["status"] in ("failed", "error")]
    assert len(bad) >= 2
    # --all: one line per failing case; the default: one line per root cause (one crash here).
    assert all(f"✗ {case['name']} (" in every.stdout for case in bad)
    assert sum(f"✗ {case['name']} (" in short.stdout for case in bad) == 1


def test_grade_seed_is_bounded_as_the_record_keeps_it(runner) -> None:  # type: ignore[no-untyped-def]
    """A seed past SQLite's integers would be graded, then fail to be kept: refused first (exit 2)."""
    result = invoke(runner, ["grade", "rmsnorm", "--seed", str(2**80)])
    assert result.exit_code == 2
    assert "--seed" in result.stderr and "9223372036854775807" in result.stderr
