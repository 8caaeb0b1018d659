"""Kernel katas: the optional extra, and the bounds guard on Triton's interpreter (without a grade).

The guard patches the interpreter process-wide and TRITON_INTERPRET must be set before a kernel
is made, so each check runs in a fresh interpreter. The kata's suite, fixtures and misconceptions
are graded end to end in test_fixtures.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from normkata.content.katas import get_kata
from tests.conftest import invoke

needs_triton = pytest.mark.extra("triton")

LEARNER = '''
import torch
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols, mask=cols < n)  # no other=: NaN in lanes n..BLOCK-1
    tl.store(y_ptr + row * n + cols, tl.where(cols < n, x, 0.0) * 2)  # the store forgot the mask


def launch(x):
    y = torch.empty_like(x)
    kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return y, torch.empty(3)
'''

SCRIPT = '''
import json, sys
import torch
from normkata.grading import kernels
kernels.prepare_environment(sys.argv[2])
sys.path.insert(0, sys.argv[2])
import learner
x = torch.arange(15, dtype=torch.float32).reshape(3, 5)
(y, _), findings = kernels.run_launcher(learner.launch, [x], [], ["x"], ["y", "scratch"])
print(json.dumps({"status": kernels.install_guard(), "findings": findings, "y": y.tolist()}))
'''


def run_guarded(tmp_path: Path) -> dict:
    (tmp_path / "learner.py").write_text(LEARNER, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPT), "-", str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=300, cwd=Path(__file__).parents[2])  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@needs_triton
def test_guard_checks_itself_and_reports_an_unmasked_store(tmp_path: Path) -> None:
    result = run_guarded(tmp_path)
    assert result["status"] == "active"
    # Every program writes 3 lanes past its row: the last program's land past the end of y and
    # are switched off; nothing crashes, y's sentinel margin is intact.
    assert "write|y|2|3|after" in result["findings"]
    assert not any(f.startswith("margin|") for f in result["findings"])
    assert "nan-fill|||9|" in result["findings"]  # 3 masked-off lanes per program, no other=
    assert result["y"][2] == [20.0, 22.0, 24.0, 26.0, 28.0]


@needs_triton
def test_kata_lists_and_grades_with_the_extra(runner) -> None:
    assert get_kata("triton_rmsnorm").missing_extras() == []
    result = invoke(runner, ["kata"])
    assert "triton_rmsnorm" in result.stdout and "(needs" not in result.stdout


def test_without_the_extra_grade_says_how_to_install_it(runner, monkeypatch, tmp_path: Path) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "triton" else real(name, *a))
    assert get_kata("triton_rmsnorm").missing_extras() == ["normkata[triton]"]
    listed = invoke(runner, ["kata"])
    assert "(needs" in listed.stdout  # "not started (needs the triton extra)", wrapped in its cell
    learner = tmp_path / "triton_rmsnorm.py"
    learner.write_text("x = 1\n", encoding="utf-8")
    result = invoke(runner, ["grade", "triton_rmsnorm", "--file", str(learner)])
    assert result.exit_code == 2
    assert 'pip install "normkata[triton]"' in result.output


@needs_triton
def test_describe_names_the_version_and_the_hooks() -> None:
    from normkata.grading import kernels

    line = kernels.describe()
    assert line.startswith("triton ") and "hooks are present" in line
