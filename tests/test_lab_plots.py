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
    legend = next(line for line in _plain(text).splitlines() if line.startswith("o "))  # notes may follow
    assert legend.strip().split("   ") == ["o Pre-LN + RMSNorm", "x Pre-LN + LayerNorm", "* no norm"]
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


def _hidden(plot: Plot, text: str) -> list[list[str]]:
    """Groups of series drawn one over the other that no note in `text` names."""
    flat = " ".join(_plain(text).split())
    return [g for g in plots.coinciding(plot.series) if " and ".join(plots._legend(s, "en") for s in g) not in flat]


def test_coinciding_series_are_named_never_hidden() -> None:
    twins = {
        "layernorm": ([1, 2, 3], [0.63, 0.629, 0.63]),
        "rmsnorm": ([1, 2, 3], [0.63, 0.63, 0.629]),
        "none": ([1, 2, 3], [0.4, 0.1, 0.01]),
    }
    plot = Plot("twins", twins, "activation std per layer", "layer", "std")
    assert plots.coinciding(twins) == [["layernorm", "rmsnorm"]]
    text = _render(plot)
    assert "LayerNorm and RMSNorm coincide" in _plain(text) and _hidden(plot, text) == []
    # On a log axis up to 3e7 the two learning runs share their rows: said, not hidden.
    assert plots.coinciding(DIVERGING) == [["Pre-LN + RMSNorm", "Pre-LN + LayerNorm"]]
    diverging = Plot("d", DIVERGING, "training loss", "step", "loss")
    assert _hidden(diverging, _render(diverging)) == []
    apart = {"a": ([1, 2], [1.0, 2.0]), "b": ([1, 2], [2.0, 1.0])}
    assert plots.coinciding(apart) == [] and "coincide" not in _plain(_render(Plot("a", apart, "t", "step", "loss")))


def test_the_compare_gap_has_a_panel_of_its_own() -> None:
    gap = {**DIVERGING, "Post-LN": (STEPS, [4.2 - 0.9 * s / 79 for s in STEPS])}
    normed = plots.without_diverged(gap)
    assert "no norm" not in normed and {"Post-LN", "Pre-LN + RMSNorm", "Pre-LN + LayerNorm"} == set(normed)
    assert not plots.log_scale(normed)  # on its own linear axis: 3.3 against 2.8 shows


def test_png_legend_names_are_the_terminal_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.axes

    labels: list[str] = []
    original = matplotlib.axes.Axes.plot

    def spy(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        labels.append(kwargs.get("label"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "plot", spy)
    series = {"none": ([1, 2], [1.0, 0.5]), "layernorm": ([1, 2], [1.0, 0.9]), "rmsnorm": ([1, 2], [1.0, 0.8])}
    plot = Plot("names", series, "activation std per layer", "layer", "std")
    plots.save_png(plot, tmp_path)
    terminal = _plain(_render(plot))
    assert labels == ["no norm", "LayerNorm", "RMSNorm"]
    assert all(label in terminal for label in labels)


def test_vanishing_explains_itself_and_hides_no_series(runner) -> None:
    from normkata.labs import vanishing

    result = invoke(runner, ["lab", "vanishing", "--layers", "6", "--width", "32"])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.stdout.split())
    assert "What to look for:" in flat
    assert "tanh of a unit-variance Gaussian has std 0.63" in flat
    assert "The no-norm gradient is flat near" in flat and "the two shrinkages cancel across layers" in flat
    run = vanishing.run(LabOptions(), layers=6, width=32)
    for key in ("std", "grad"):
        plot = Plot(key, vanishing.series(run, key), "t", "layer", key)
        assert _hidden(plot, result.stdout) == [], key


def test_lab_tables_in_chinese_have_no_english_headers(runner) -> None:
    result = invoke(runner, ["--lang", "zh", "lab", "vanishing", "--layers", "3", "--width", "16"])
    assert result.exit_code == 0
    assert "std none" not in result.stdout and "标准差 无" in result.stdout
    assert "无归一化：" in result.stdout and "无归一化:" not in result.stdout
    assert "看点：" in result.stdout and "0.63" in result.stdout


def test_other_labs_say_what_to_look_for(runner) -> None:
    out = " ".join(invoke(runner, ["lab", "precision"]).stdout.split())
    assert "What to look for: • fp16 overflows above 65504" in out


def test_a_second_panel_keeps_each_runs_marker() -> None:
    normed = {k: v for k, v in DIVERGING.items() if k != "no norm"}
    plot = Plot("n", normed, "training loss at lr 0.05, normed runs only", "step", "loss", styles=(0, 1))
    legend = next(line for line in _plain(_render(plot)).splitlines() if line.startswith("o "))
    assert legend.strip().split("   ") == ["o Pre-LN + RMSNorm", "x Pre-LN + LayerNorm"]
    swapped = Plot("n", dict(reversed(list(normed.items()))), "t", "step", "loss", styles=(1, 0))
    legend = next(line for line in _plain(_render(swapped)).splitlines() if line.startswith("x "))
    assert legend.strip().split("   ") == ["x Pre-LN + LayerNorm", "o Pre-LN + RMSNorm"]
