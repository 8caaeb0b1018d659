"""What a teacher reads of each submission: the gradebook's reason and the Markdown report, and
what Gradescope shows students (visibility, seed). Built from GradeResults made here: the
reasons depend on what the runner decided (causes, named mistakes), never on its wording."""

from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from normkata.classroom.gradebook import Row
from normkata.classroom.markdown import escape_markdown, markdown_report, terminal_report
from normkata.classroom.reasons import common_reasons, reason_of, stopped_at_import
from normkata.content.katas import get_kata
from normkata.grading.contract import CaseResult, Category, Cause, Diagnosis, GradeResult, Status
from normkata.grading.formats import to_gradescope
from tests.conftest import invoke

KATA = get_kata("rmsnorm")
PASSED = CaseResult("forward[3x16-cpu]", "forward [3x16-cpu]", Category.FORWARD, Status.PASSED)


def result(*cases: CaseResult, named: tuple[Diagnosis, ...] = (), lang: str = "en") -> GradeResult:
    return GradeResult("rmsnorm", "alice.py", list(cases), list(named), 7, "full", 0.5, "2.13.0", lang)


def erred(
    cause: Cause,
    category: Category = Category.FORWARD,
    message: str = "RMSNorm(8): it broke",
    status: Status = Status.ERROR,
) -> CaseResult:
    return CaseResult("forward[2x5x8-cpu]", "forward [2x5x8-cpu]", category, status, message, None, None, cause)


EPS = Diagnosis("rms-eps-outside-sqrt", "eps added outside the square root", "Put eps inside.", 3)
FORBIDDEN = erred(Cause.FORBIDDEN, Category.INTEGRITY, "rmsnorm.py uses rms_norm: write it yourself.", Status.FAILED)


@pytest.mark.parametrize(
    ("graded", "files", "text", "kinds"),
    [
        (result(PASSED), {"": b""}, "", []),
        (
            result(
                CaseResult(
                    "import",
                    "import",
                    Category.STATE,
                    Status.ERROR,
                    "SYNTAX ERROR in rmsnorm.py line 3: ...",
                    None,
                    None,
                    Cause.SYNTAX,
                )
            ),
            {"": b"import torch\n\nclass RMSNorm(:\n"},
            "syntax error at line 3",
            ["syntax-error"],
        ),
        # In a folder submission the file that does not parse may be a helper module.
        (
            result(
                CaseResult(
                    "import", "import", Category.STATE, Status.ERROR, "IMPORT ERROR ...", None, None, Cause.SYNTAX
                )
            ),
            {"rmsnorm.py": b"from helper import f\n", "helper.py": b"def f(:\n"},
            "syntax error at line 1 of helper.py",
            ["syntax-error"],
        ),
        (
            result(
                CaseResult(
                    "import",
                    "import",
                    Category.STATE,
                    Status.ERROR,
                    "IMPORT ERROR in rmsnorm.py line 1: ValueError: boom\n   1 | raise ValueError",
                    None,
                    None,
                    Cause.IMPORT,
                )
            ),
            {"": b"raise ValueError('boom')\n"},
            "IMPORT ERROR in rmsnorm.py line 1: ValueError: boom",
            ["import-error"],
        ),
        (
            result(PASSED, erred(Cause.RAISED), FORBIDDEN),
            {"": b"import torch.nn.functional as F\nx = F.rms_norm\nfrom torch.nn.functional import rms_norm\n"},
            "forbidden API `F.rms_norm`, `rms_norm`",
            ["forbidden-api"],
        ),
        # Reached by a built name: the spelling is not in the source, the runner's name is.
        (
            result(PASSED, FORBIDDEN),
            {"": b"import torch\nf = getattr(torch, 'rms' + '_norm')\n"},
            "forbidden API `rms_norm`",
            ["forbidden-api"],
        ),
        (
            result(PASSED, erred(Cause.TIMEOUT), erred(Cause.TIMEOUT), erred(Cause.NOT_RUN)),
            {"": b""},
            "timed out (2 case(s))",
            ["timed-out"],
        ),
        (
            result(erred(Cause.CRASH), erred(Cause.NOT_RUN), named=(EPS,)),
            {"": b""},
            "crashed (1 case(s)); eps added outside the square root",
            ["crashed", "rms-eps-outside-sqrt"],
        ),
        (
            result(PASSED, erred(Cause.GLOBAL_STATE, Category.INTEGRITY, status=Status.FAILED)),
            {"": b""},
            "changed torch's global state on import",
            ["global-state"],
        ),
        (result(erred(Cause.RAISED), erred(Cause.RAISED)), {"": b""}, "raised an exception (2 case(s))", ["raised"]),
        (
            result(
                PASSED,
                CaseResult("a", "a", Category.STATE, Status.FAILED, "x"),
                CaseResult("b", "b", Category.GRADIENTS, Status.FAILED, "y"),
            ),
            {"": b""},
            "2 cases failed (module state, gradients)",
            ["wrong-results"],
        ),
    ],
)
def test_every_failing_grade_says_why(
    graded: GradeResult, files: dict[str, bytes], text: str, kinds: list[str]
) -> None:
    reason = reason_of(graded, files, KATA, "en")
    assert (reason.text, reason.kinds) == (text, kinds)


def test_reasons_in_chinese() -> None:
    syntax = result(
        CaseResult("import", "import", Category.STATE, Status.ERROR, "", None, None, Cause.SYNTAX), lang="zh"
    )
    assert reason_of(syntax, {"": b"class X(:\n"}, KATA, "zh").text == "第 1 行语法错误"
    wrong = result(PASSED, CaseResult("a", "a", Category.STATE, Status.FAILED, "x"), lang="zh")
    assert reason_of(wrong, {"": b""}, KATA, "zh").text == "1 个用例未通过（模块状态）"


def test_only_a_file_that_never_imported_is_out_of_the_reference_max() -> None:
    assert stopped_at_import(
        result(CaseResult("import", "import", Category.STATE, Status.ERROR, "", None, None, Cause.MISSING_CLASS))
    )
    assert not stopped_at_import(result(PASSED, erred(Cause.CRASH)))


def test_the_summary_counts_each_kind_once_per_submission() -> None:
    graded = result(erred(Cause.CRASH), named=(EPS,))
    counted = common_reasons([(["crashed", "rms-eps-outside-sqrt"], graded), (["crashed"], None), ([], None)], "en")
    assert counted == [("crashed", "crashed", 2), ("rms-eps-outside-sqrt", "eps added outside the square root", 1)]


# -- the Markdown report -------------------------------------------------------------------------------------


def test_the_markdown_report_is_grades_terminal_report(tmp_path: Path) -> None:
    graded = result(
        PASSED,
        CaseResult(
            "forward[8-cpu]",
            "forward [8-cpu]",
            Category.FORWARD,
            Status.FAILED,
            "RMSNorm(8).forward on N(0,1): max abs error 0.5 at (0, 3)",
            "rms-eps-outside-sqrt",
        ),
        named=(EPS,),
    )
    row = Row("alice", False, 1, 2, "eps added outside the square root", seed=7, sha256="ab" * 32)
    text = markdown_report(row, graded, "en")
    body = terminal_report(graded)
    assert f"```text\n{body}\n```\n" in text
    for line in (
        "Grading alice.py (kata rmsnorm)  torch 2.13.0 · seed 7 · sandbox: full · 0.5 s",
        "Recognised mistake: eps added outside the square root (3 case(s)).",
        "  Hint: Put eps inside.",
        "NOT YET: 1 of 2 cases pass.",
    ):
        assert line in body.splitlines()
    assert text.startswith("# rmsnorm\\: alice\n\n| Gradebook | |\n|---|---|\n| score | 1 / 2 |\n")
    assert "| reason | eps added outside the square root |" in text and "| seed | 7 |" in text


def test_nothing_a_submission_controls_acts_as_markdown() -> None:
    message = "```\n![x](https://evil.example/track.png) <img src=x> ````` [link](http://x)"
    graded = result(CaseResult("forward", "forward", Category.FORWARD, Status.FAILED, message))
    row = Row("[me](http://evil.example) <b>", False, 0, 1, "![x](http://evil.example/x.png) | # h")
    text = markdown_report(row, graded, "en")
    fence = re.search(r"^(`{3,})text$", text, re.MULTILINE)
    assert fence is not None and len(fence.group(1)) == 6  # longer than the five backticks inside
    assert text.count(fence.group(1)) == 2  # opened and closed once: the message cannot close it
    outside = text[: fence.start()]
    assert "](" not in outside.replace("\\](", "").replace("\\]\\(", "") and "<b>" not in outside
    assert "\\[me\\]\\(http\\://evil\\.example\\) \\<b\\>" in outside
    assert escape_markdown("a|b") == "a\\|b"  # a cell cannot end early


# -- Gradescope: visibility and one seed ------------------------------------------------------------------


def test_visibility_is_every_tests_and_the_results() -> None:
    payload = to_gradescope(result(PASSED, erred(Cause.RAISED)), "after_due_date")
    assert payload["visibility"] == "after_due_date"
    assert {test["visibility"] for test in payload["tests"]} == {"after_due_date"}
    assert to_gradescope(result(PASSED))["visibility"] == "visible"


def test_the_bundle_grades_with_its_seed_and_visibility(runner, tmp_path: Path) -> None:
    """run_autograder, run as Gradescope does, with a stand-in `normkata` that records its arguments."""
    wheel = tmp_path / "normkata-0.0.0-py3-none-any.whl"
    wheel.write_bytes(b"not a real wheel")
    bundle = tmp_path / "autograder.zip"
    result_ = invoke(
        runner,
        [
            "gradescope-bundle",
            "rmsnorm",
            "--out",
            str(bundle),
            "--wheel",
            str(wheel),
            "--seed",
            "7",
            "--visibility",
            "hidden",
        ],
    )
    assert result_.exit_code == 0, result_.output
    root = tmp_path / "autograder"
    for part in ("submission", "results"):
        (root / part).mkdir(parents=True)
    (root / "run_autograder").write_bytes(zipfile.ZipFile(bundle).read("run_autograder"))
    (root / "run_autograder").chmod(0o755)
    (root / "submission" / "rmsnorm.py").write_text("x = 1\n")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "normkata").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {tmp_path}/args\nexit 3\n')
    (fake_bin / "normkata").chmod(0o755)
    env = {**os.environ, "NORMKATA_AUTOGRADER_ROOT": str(root), "PATH": f"{fake_bin}:{os.environ['PATH']}"}
    done = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    args = (tmp_path / "args").read_text().split("\n")
    assert args[args.index("--visibility") + 1] == "hidden" and args[args.index("--seed") + 1] == "7"
    fallback = json.loads((root / "results" / "results.json").read_text())
    assert fallback["visibility"] == "hidden" and fallback["score"] == 0.0  # the grader stopped: still hidden


def test_extra_state_is_not_told_to_rename_the_gain() -> None:
    """A module whose state_dict only holds more than torch's (eps as a buffer) keeps it out; a
    module missing torch's keys is told how to name them."""
    from normkata.grading.checks import configure, load_fix
    from normkata.grading.messages import StateLoad

    naming = "Fix: name the gain `weight`, a Parameter of shape (hidden_size,)."
    configure(0, "en")
    assert load_fix(StateLoad(missing=["eps"]), naming) == (
        "Fix: `eps` should not be in the state_dict: keep a setting such as eps a plain attribute "
        "(self.eps = eps), not a buffer or a Parameter."
    )
    assert load_fix(StateLoad(missing=["gain"], unexpected=["weight"]), naming) == naming
    assert load_fix(StateLoad(mismatched=["weight"]), naming) == naming
