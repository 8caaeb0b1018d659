"""Lab plots: a log scale where values span orders of magnitude, series told apart by marker
and colour (none under NO_COLOR), labelled axes, whole-number ticks, and `--out` naming only
the files this run wrote; the precision table puts each value under its own dtype."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.console import Console

from normkata.labs import plots, precision
from normkata.labs.common import LabOptions
from normkata.labs.plots import Plot
from tests.conftest import invoke

STEPS = list(range(80))
#: A compare-lab picture: three runs that learn, one that diverges to 3e7.
DIVERGING = {
    "Pre-LN + RMSNorm": (STEPS, [4.2 - 2.5 * s / 79 for s in STEPS]),
    "Pre-LN + LayerNorm": (STEPS, [4.2 - 2.3 * s / 79 for s in STEPS]),
    "no norm": (STEPS, [4.2 * 1.25**s if s < 70 else float("nan") for s in STEPS]),
}
ANSI_COLOUR = re.compile(r"\x1b\[(?:\d+;)*(?:3[0-7]|9[0-7]|38;5;\d+)m")


def _render(plot: Plot, *, no_color: bool = False, lang: str = "en") -> str:
    console = Console(force_terminal=True, color_system="256", no_color=no_color, width=100)
    with console.capture() as captured:
        console.print(plots.terminal(plot, lang, width=100))
    return captured.get()


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_log_scale_only_where_values_span_orders_of_magnitude() -> None:
    assert plots.log_scale(DIVERGING)
    assert not plots.log_scale({k: v for k, v in DIVERGING.items() if k != "no norm"})


def test_a_diverging_run_no_longer_flattens_the_others() -> None:
    text = _plain(_render(Plot("loss", DIVERGING, "training loss at lr 0.05", "step", "loss")))
    inside = [re.split(r"[│┤]", line, maxsplit=1)[1] for line in text.splitlines() if re.search(r"^\s*\S*[│┤]", line)]
    learning = [row for row in inside if "o" in row or "x" in row]
    assert len(learning) >= 2  # on a linear scale up to 3e7 the learning runs are one flat bottom row
    assert re.search(r"^\s*1e7┤", text, re.MULTILINE) and re.search(r"^\s*10┤", text, re.MULTILINE)
    assert "loss (log scale)" in text and "step" in text


def test_each_series_has_its_own_marker_and_colour() -> None:
    text = _render(Plot("loss", DIVERGING, "training loss at lr 0.05", "step", "loss"))
    legend = _plain(text).strip().splitlines()[-1]
    assert legend.split("   ") == ["o Pre-LN + RMSNorm", "x Pre-LN + LayerNorm", "* no norm"]
    colours = {match.group(0) for match in ANSI_COLOUR.finditer(text)}
    assert len(colours) >= 3


def test_no_color_keeps_markers_and_drops_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _render(Plot("loss", DIVERGING, "training loss at lr 0.05", "step", "loss"), no_color=True)
    assert not ANSI_COLOUR.search(text)
    assert {"o", "x", "*"} <= set(_plain(text))


def test_whole_number_ticks() -> None:
    assert plots.integer_ticks({"a": (list(range(1, 11)), [1.0] * 10)}) == list(range(1, 11))
    assert plots.integer_ticks({"a": (STEPS, [1.0] * 80)}) == [0, 10, 20, 30, 40, 50, 60, 70]
    assert plots.integer_ticks({"a": ([0.5, 1.5], [1.0, 2.0])}) is None


def test_chinese_axis_labels_and_legend() -> None:
    text = _plain(_render(Plot("loss", DIVERGING, "training loss at lr 0.05", "step", "loss"), lang="zh"))
    assert "学习率 0.05 下的训练损失" in text and "损失（对数坐标）" in text and "训练步" in text
    assert "无归一化" in text


def test_png_uses_log_scale_and_whole_number_ticks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.axes

    calls: list[str] = []
    real = matplotlib.axes.Axes.set_yscale

    def spy(self, value, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(value)
        return real(self, value, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "set_yscale", spy)
    path = plots.save_png(Plot("loss", DIVERGING, "training loss", "step", "loss"), tmp_path)
    assert path == tmp_path / "loss.png" and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert calls == ["log"]


def test_vanishing_cli_plots_layers_as_whole_numbers(runner) -> None:
    result = invoke(runner, ["lab", "vanishing", "--layers", "6", "--width", "32"])
    assert result.exit_code == 0, result.output
    tick_rows = [line for line in result.stdout.splitlines() if re.fullmatch(r"\s*1\s+2\s+3\s+4\s+5\s+6\s*", line)]
    assert len(tick_rows) == 2  # one per plot
    assert not re.search(r"\b\d\.\d\b\s+\d\.\d\b", result.stdout.split("activation std per layer")[1])
    assert re.search(r"^std\s+layer\s*$", result.stdout, re.MULTILINE)  # std stays within two decades here
    assert re.search(r"^\|grad\| \(log scale\)\s+layer\s*$", result.stdout, re.MULTILINE)


def test_out_lists_only_what_this_run_wrote(runner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "compare_loss_lr0.05.png").write_bytes(b"left from an earlier run")
    result = invoke(runner, ["--lang", "en", "lab", "vanishing", "--layers", "3", "--width", "16", "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = result.stdout.split("Wrote:\n", 1)[1].splitlines()
    assert [Path(p.strip()).name for p in written] == [
        "vanishing.json",
        "vanishing.csv",
        "vanishing_std.png",
        "vanishing_grad.png",
    ]


def test_precision_values_sit_under_their_own_dtype() -> None:
    result = precision.run(LabOptions())
    rows = {row["what"]: row for row in result["rows"]}
    cancel = rows["fp32 one-pass variance at mean 1000: max error"]
    assert cancel["float16"] is None and cancel["bfloat16"] is None and cancel["float32"] > 0.05
    assert rows["largest finite value"]["float32"] == pytest.approx(3.4028234663852886e38)
    assert rows["RMSNorm with fp32 upcast, same row"]["float32"] is None  # nothing to upcast


def test_precision_table_has_a_float32_column(runner) -> None:
    out = invoke(runner, ["lab", "precision"]).stdout
    header = next(line for line in out.splitlines() if "float16" in line)
    assert header.index("float16") < header.index("bfloat16") < header.index("float32")
    cancel = next(line for line in out.splitlines() if "one-pass" in line)
    cells = [c.strip() for c in cancel.split("│")[2:5]]
    assert cells[:2] == ["-", "-"] and float(cells[2]) > 0.05
