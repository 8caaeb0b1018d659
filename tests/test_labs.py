"""Every lab on tiny settings, checking the physics that must hold, and the CLI around them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from normkata.labs import compare, depth, normfree, precision, vanishing
from normkata.labs.common import LabOptions
from tests.conftest import invoke
from tests.grading.test_fixtures import fixture_source


def test_vanishing_physics() -> None:
    result = vanishing.run(LabOptions(seed=0), layers=10, width=128, batch=256)
    first, last = result["rows"][0], result["rows"][-1]
    # Without normalization the std drifts by orders of magnitude; with it, it stays put.
    assert last["std_none"] / first["std_none"] < 1e-2
    for variant in ("layernorm", "rmsnorm"):
        assert 0.5 < last[f"std_{variant}"] / first[f"std_{variant}"] < 2.0
        assert 0.3 < last[f"std_{variant}"] < 1.5
    # And the gradients reaching the layers are orders of magnitude larger with it.
    assert first["grad_rmsnorm"] > 100 * first["grad_none"]


def test_a_larger_gain_stops_the_decay() -> None:
    # gain 4 makes each Linear amplify (4/sqrt(3) > 1): tanh now saturates instead of vanishing.
    result = vanishing.run(LabOptions(seed=0), layers=6, width=64, batch=128, gain=4.0)
    assert result["rows"][-1]["std_none"] > 0.7
    assert abs(result["rows"][-1]["std_rmsnorm"] - result["rows"][0]["std_rmsnorm"]) < 0.1


def test_vanishing_is_reproducible() -> None:
    assert vanishing.run(LabOptions(seed=3), layers=4, width=32, batch=64) == vanishing.run(
        LabOptions(seed=3), layers=4, width=32, batch=64
    )


@pytest.mark.slow
def test_compare_tiny_run_learns_and_reports() -> None:
    result = compare.run(LabOptions(seed=0), quick=True, data_path=None, steps=30, lrs=(3e-3,))
    assert [row["config"] for row in result["summary"]] == [c[0] for c in compare.CONFIGS]
    pre_rms = next(r for r in result["runs"] if r["label"] == "Pre-LN + RMSNorm")
    assert pre_rms["first_nan"] is None
    assert pre_rms["losses"][-1] < pre_rms["losses"][0]  # it learns characters
    assert math.isclose(pre_rms["losses"][0], math.log(65), rel_tol=0.15)  # starts near uniform over 65 chars


@pytest.mark.slow
def test_normfree_tiny_run_learns_and_reports() -> None:
    result = normfree.run(LabOptions(seed=0), quick=True, data_path=None, steps=20, lrs=(3e-3,))
    assert [row["config"] for row in result["summary"]] == [c[0] for c in normfree.CONFIGS]
    for run in result["runs"]:  # DyT and the sandwich placement train like the norms they replace
        assert run["first_nan"] is None, run["label"]
        assert run["losses"][-1] < run["losses"][0], run["label"]
        assert math.isclose(run["losses"][0], math.log(65), rel_tol=0.15)


def test_lab_model_sandwich_and_dyt_structure() -> None:
    from normkata.labs.common import norm_factory
    from normkata.labs.model import CharTransformer, Config, DyT

    sandwich = CharTransformer(
        Config(vocab=10, block=8, layers=2, d_model=8, heads=2, placement="sandwich", norm="rmsnorm"),
        norm_factory("rmsnorm", LabOptions()),
    )
    names = {n for n, _ in sandwich.named_modules()}
    assert {"blocks.0.norm1", "blocks.0.post1", "blocks.0.norm2", "blocks.0.post2", "final_norm"} <= names
    dyt = norm_factory("dyt", LabOptions())(8)
    assert isinstance(dyt, DyT) and dyt.alpha.shape == (1,) and dyt.alpha.item() == 0.5
    assert not dyt.bias.detach().any()


@pytest.mark.slow
def test_depth_tiny_run_shapes() -> None:
    result = depth.run(LabOptions(seed=0), quick=True, data_path=None, depths=(1, 2), steps=5)
    assert {(r["depth"], r["placement"]) for r in result["runs"]} == {(1, "pre"), (1, "post"), (2, "pre"), (2, "post")}
    assert all(len(r["losses"]) == 5 for r in result["runs"])


def test_precision_numbers() -> None:
    rows = {row["what"]: row for row in precision.run(LabOptions())["rows"]}
    assert rows["largest finite value"]["float16"] == 65504.0
    assert math.isinf(rows["300² (the Pre-Norm document)"]["float16"])
    assert rows["300² (the Pre-Norm document)"]["bfloat16"] == 90112.0
    assert rows["naive RMSNorm of a row of 300s (true: 1)"]["float16"] == 0.0
    assert rows["RMSNorm with fp32 upcast, same row"]["float16"] == pytest.approx(1.0, abs=1e-3)
    assert rows["eps 1e-08 stored"]["float16"] == 0.0
    assert math.isnan(rows["naive RMSNorm of a zero row, eps 1e-08"]["float16"])
    assert rows["naive RMSNorm of a zero row, eps 1e-05"]["float16"] == 0.0
    swamped = rows["sum of 4096 squares, one add at a time (÷ exact)"]
    assert swamped["bfloat16"] < 0.7
    assert rows["fp32 one-pass variance at mean 1000: max error"]["float32"] > 0.05


def test_lab_cli_writes_plots_and_numbers(runner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = invoke(runner, ["lab", "vanishing", "--layers", "4", "--width", "32", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "activation std per layer" in result.stdout  # the terminal plot
    data = json.loads((out / "vanishing.json").read_text())
    assert len(data["rows"]) == 4
    assert (out / "vanishing.csv").read_text().startswith("layer,std_none")
    for name in ("vanishing_std.png", "vanishing_grad.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_use_mine_uses_the_workspace_and_explains_a_missing_file(runner, tmp_path: Path) -> None:
    missing = invoke(runner, ["lab", "precision", "--use-mine"])
    assert missing.exit_code == 2
    assert "rmsnorm.py not found" in missing.stderr
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "rmsnorm.py").write_text(fixture_source("rmsnorm", "buggy_no_upcast"))
    mine = invoke(runner, ["lab", "precision", "--use-mine"])
    assert mine.exit_code == 0
    row = next(line for line in mine.stdout.splitlines() if "your RMSNorm" in line)
    assert " 0 " in row  # the no-upcast bug wipes the row of 300s out in fp16


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["lab", "compare", "--data", "no/such.txt"], "--data: no/such.txt: no such file"),
        (["lab", "vanishing", "--layers", "1"], "Invalid value for '--layers'"),
        (["lab", "depth", "--device", "tpu"], "Invalid value for '--device'"),
    ],
)
def test_lab_input_errors(runner, args: list[str], message: str) -> None:
    result = invoke(runner, args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_short_data_file_is_rejected(runner, tmp_path: Path) -> None:
    short = tmp_path / "tiny.txt"
    short.write_text("to be or not to be")
    result = invoke(runner, ["lab", "compare", "--quick", "--data", str(short)])
    assert result.exit_code == 2
    assert "has 18 characters; the labs need at least 2000" in result.stderr
