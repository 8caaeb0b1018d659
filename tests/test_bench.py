"""`normkata bench`: median and IQR per row, the noisy-machine warning, and the learner's rows
(only with --use-mine, marked when the file fails its kata). Timings are faked where the numbers
do not matter, and never asserted."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from normkata.labs import bench
from normkata.paths import solutions_dir
from tests.conftest import invoke

TINY = ["bench", "--shape", "2", "8", "32"]


@pytest.fixture(autouse=True)
def pinned_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"  # NORMKATA_WORKSPACE in conftest
    folder.mkdir()
    return folder


def fake_timer(monkeypatch: pytest.MonkeyPatch, iqr_share: float) -> None:
    """Every timing takes 1 ms with an IQR of iqr_share of that, at once."""

    def timer(fn: Callable[[], Any], min_run_time: float, max_run_time: float) -> bench.Timing:
        fn()
        return bench.Timing(1e-3, iqr_share * 1e-3)

    monkeypatch.setattr(bench, "measure", timer)


def test_rows_show_median_and_iqr_and_no_learner_rows_without_use_mine(runner, workspace: Path, tmp_path: Path) -> None:
    (workspace / "rmsnorm.py").write_text((solutions_dir() / "rmsnorm.py").read_text())
    out = tmp_path / "out"
    result = invoke(runner, [*TINY, "--min-time", "0.01", "--max-time", "0.02", "--out", str(out)])
    assert result.exit_code == 0, result.output
    header = result.output.split("───")[0]
    assert header.count("median") == 2 and header.count("IQR") == 2
    data = json.loads((out / "bench.json").read_text())
    names = [r["implementation"] for r in data["rows"]]
    assert names == ["torch F.rms_norm", "torch F.layer_norm", "reference RMSNorm", "reference LayerNorm"]
    assert all(r["forward_ms"] > 0 and r["forward_iqr_ms"] >= 0 and r["backward_iqr_ms"] >= 0 for r in data["rows"])
    assert isinstance(data["noisy"], bool) and data["timings"] == 9
    assert "yours" not in result.output


def test_noisy_machine_is_said_once_and_recorded(runner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_timer(monkeypatch, iqr_share=0.5)
    out = tmp_path / "out"
    result = invoke(runner, [*TINY, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.count("Too noisy to trust: 9 of 9 timings") == 1
    assert "LayerNorm's time" not in result.output  # no ratio of timings it calls untrustworthy
    assert "1.00   ±0.50" in result.output  # forward: median and IQR side by side
    data = json.loads((out / "bench.json").read_text())
    assert data["noisy"] is True and data["noisy_timings"] == 9
    assert all(row["noisy"] for row in data["rows"])


def test_a_quiet_machine_gets_no_warning(runner, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_timer(monkeypatch, iqr_share=0.01)
    result = invoke(runner, TINY)
    assert result.exit_code == 0, result.output
    assert "Too noisy" not in result.output
    assert "1.00× LayerNorm's time forward" in result.output  # the summary divides medians
    assert re.search(r"^ *memory copy: [\d.]+ GB/s *$", result.output, re.M)  # never split at 80 columns


def test_use_mine_grades_the_learner_file_and_marks_a_failing_one(
    runner, monkeypatch: pytest.MonkeyPatch, workspace: Path, tmp_path: Path
) -> None:
    fake_timer(monkeypatch, iqr_share=0.01)
    no_eps = (solutions_dir() / "rmsnorm.py").read_text().replace(" + self.eps", "")
    assert "self.eps)" not in no_eps
    (workspace / "rmsnorm.py").write_text(no_eps)
    out = tmp_path / "out"
    result = invoke(runner, [*TINY, "--use-mine", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = {r["implementation"]: r for r in json.loads((out / "bench.json").read_text())["rows"]}
    assert rows["yours RMSNorm"]["kata_passed"] is False
    assert rows["reference RMSNorm"]["kata_passed"] is True and "yours LayerNorm" not in rows
    assert "✗ fails kata" in result.output
    assert "fail their kata: a wrong kernel's speed means nothing" in result.output
