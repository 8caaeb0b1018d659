"""A lab's plot, drawn twice: as text for the terminal (plotext) and as a PNG (matplotlib).

Both pick the same look for each series (a marker any terminal can draw, and a colour, so
that series stay apart without colour too), a log scale when the values span orders of
magnitude (a diverging run at 3e7 would flatten every other curve), whole-number ticks for
whole-number x (layers, steps) and labelled axes. The terminal version speaks the learner's
language; the PNG keeps English (fonts may lack CJK glyphs).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Group

Series = dict[str, tuple[list[float], list[float]]]


@dataclass(frozen=True)
class Plot:
    name: str  # the PNG's file name, without .png
    series: Series  # English label -> (xs, ys)
    title: str  # English
    xlabel: str  # an axis name with a translation: layer, step
    ylabel: str  # std, |grad|, loss
    #: Each series' look by its index in another plot (STYLES), so that a second panel of the
    #: same runs keeps their markers and colours; empty: in order.
    styles: tuple[int, ...] = ()

    def style_index(self, index: int) -> int:
        return self.styles[index] if index < len(self.styles) else index


#: One look per series, in order: terminal marker (ASCII, so any locale draws it, and never
#: "+", which labels such as "Pre-LN + RMSNorm" contain), plotext colour (its 16-colour code
#: for Rich), matplotlib marker.
STYLES = (
    ("o", "blue+", 12, "o"),
    ("x", "red+", 9, "x"),
    ("*", "green+", 10, "*"),
    ("#", "magenta+", 13, "s"),
    ("@", "cyan+", 14, "^"),
    ("%", "orange+", 11, "D"),
)
#: Values spanning at least this ratio are drawn on a log scale.
LOG_RATIO = 100.0
_MOST_TICKS = 10
#: Private-use character that holds the second cell of a wide character while plotext lays out.
_FILLER = "\ue000"


def _style(index: int) -> tuple[str, str, int, str]:
    return STYLES[index % len(STYLES)]


def _finite(xs: list[float], ys: list[float], log: bool) -> list[tuple[float, float]]:
    return [(x, y) for x, y in zip(xs, ys, strict=True) if math.isfinite(y) and (y > 0 or not log)]


def log_scale(series: Series) -> bool:
    """True when the finite positive values span two orders of magnitude or more."""
    values = [y for _xs, ys in series.values() for y in ys if math.isfinite(y) and y > 0]
    return bool(values) and max(values) / min(values) >= LOG_RATIO


def integer_ticks(series: Series) -> list[int] | None:
    """Whole-number ticks (1, 2, 5 × 10^k apart, at most ten) when every x is a whole number."""
    xs = [x for x_values, _ys in series.values() for x in x_values]
    if not xs or any(float(x) != int(x) for x in xs):
        return None
    low, high = int(min(xs)), int(max(xs))
    step = next(m * 10**e for e in range(18) for m in (1, 2, 5) if (high - low) / (m * 10**e) < _MOST_TICKS)
    first = math.ceil(low / step) * step
    return list(range(first, high + 1, step))


def _decades(series: Series) -> list[float]:
    """Powers of ten inside the values' range (a log scale spans at least two of them)."""
    values = [y for _xs, ys in series.values() for y in ys if math.isfinite(y) and y > 0]
    low, high = math.ceil(math.log10(min(values))), math.floor(math.log10(max(values)))
    every = max(1, math.ceil((high - low + 1) / _MOST_TICKS))
    return [10.0**k for k in range(low, high + 1, every)]


def _decade_label(value: float) -> str:
    exponent = round(math.log10(value))
    return f"{value:g}" if -2 <= exponent <= 3 else f"1e{exponent}"


def terminal(plot: Plot, lang: str, *, width: int, height: int = 16) -> Group:
    """The plot as Rich renderables: title, the plotext canvas, a legend in the series' styles."""
    import plotext as plt
    from rich.columns import Columns
    from rich.console import Group
    from rich.text import Text

    log = log_scale(plot.series)
    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("clear")
    legend: list[Text] = []
    for index, (label, (xs, ys)) in enumerate(plot.series.items()):
        marker, color, code, _png = _style(plot.style_index(index))
        points = _finite(xs, ys, log)
        if points:
            plt.plot([x for x, _ in points], [y for _, y in points], marker=marker, color=color)
        item = Text(f"{marker} ", style=f"bold color({code})")
        item.append(_legend(label, lang), style=f"color({code})")
        legend.append(item)
    if log:
        plt.yscale("log")
        ticks = _decades(plot.series)
        plt.yticks(ticks, [_decade_label(t) for t in ticks])
    xticks = integer_ticks(plot.series)
    if xticks:
        plt.xticks(xticks, [str(t) for t in xticks])
    plt.xlabel(_two_cells(axis_label(plot.xlabel, lang)))
    plt.ylabel(_two_cells(axis_label(plot.ylabel, lang, log=log)))
    canvas = plt.build().replace(_FILLER, "")
    title = Text(translated_title(plot.title, lang), style="bold")
    notes = [Text(note, style="italic") for note in coincide_notes(plot.series, lang, height=height)]
    # Columns keeps each legend entry whole where a long legend needs a second line.
    return Group(title, Text.from_ansi(canvas), Columns(legend, padding=(0, 3)), *notes)


def coinciding(series: Series, *, height: int = 16) -> list[list[str]]:
    """Groups of series that would land on the same rows of a terminal plot `height` rows high:
    every point within half a row of the other's (on the log scale when the plot uses one)."""
    log = log_scale(series)

    def scaled(ys: list[float]) -> list[float]:
        return [math.log10(y) if log else y for y in ys if math.isfinite(y) and (y > 0 or not log)]

    values = [v for _xs, ys in series.values() for v in scaled(ys)]
    if not values:
        return []
    span = (max(values) - min(values)) or 1.0
    tolerance = span / height / 2
    groups: list[list[str]] = []
    for label, (xs, ys) in series.items():
        for group in groups:
            other_xs, other_ys = series[group[0]]
            if xs == other_xs and len(ys) == len(other_ys):
                mine, theirs = scaled(ys), scaled(other_ys)
                if len(mine) == len(theirs) and all(abs(a - b) <= tolerance for a, b in zip(mine, theirs, strict=True)):
                    group.append(label)
                    break
        else:
            groups.append([label])
    return [g for g in groups if len(g) > 1]


def coincide_notes(series: Series, lang: str, *, height: int = 16) -> list[str]:
    """A note for each group of series drawn one over the other: no series is hidden unsaid."""
    from normkata.i18n import t

    pct = f"{100 / height / 2:.0f}%"
    return [
        t("lab.plot.same", lang, names=t("lab.plot.and", lang).join(_legend(label, lang) for label in group), pct=pct)
        for group in coinciding(series, height=height)
    ]


def without_diverged(series: Series, factor: float = 3.0) -> Series:
    """The series whose last finite value is within `factor` of the lowest: a run that diverged
    (NaN, or a loss in the millions) drops out, so the gap between the others shows."""
    finals = {label: next((y for y in reversed(ys) if math.isfinite(y)), math.inf) for label, (_, ys) in series.items()}
    best = min(finals.values(), default=math.inf)
    if not math.isfinite(best):
        return {}
    return {label: series[label] for label, final in finals.items() if final <= factor * abs(best)}


def save_png(plot: Plot, folder: Path) -> Path:
    """The plot as `folder/<name>.png` (matplotlib, loaded only when asked for)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    log = log_scale(plot.series)
    figure, axes = plt.subplots(figsize=(7, 4))
    for index, (label, (xs, ys)) in enumerate(plot.series.items()):
        points = _finite(xs, ys, log)
        every = max(1, len(points) // 12)  # a marker on every point would blot out a 200-step curve
        look = plot.style_index(index)
        axes.plot(
            [x for x, _ in points],
            [y for _, y in points],
            label=_legend(label, "en"),
            marker=_style(look)[3],
            markevery=every,
            color=f"C{look % 10}",
        )
    if log:
        axes.set_yscale("log")
    if integer_ticks(plot.series):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    ylabel = f"{plot.ylabel} (log scale)" if log else plot.ylabel
    axes.set(title=plot.title, xlabel=plot.xlabel, ylabel=ylabel)
    axes.legend()
    axes.grid(alpha=0.3)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{plot.name}.png"
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def axis_label(name: str, lang: str, *, log: bool = False) -> str:
    from normkata.i18n import has, t

    shown = t(f"lab.axis.{name}", lang) if has(f"lab.axis.{name}") else name
    return t("lab.axis.log", lang, label=shown) if log else shown


def translated_title(title: str, lang: str) -> str:
    from normkata.i18n import has, t

    if has(f"lab.plot.{title}"):
        return t(f"lab.plot.{title}", lang)
    match = re.fullmatch(r"training loss at lr (\S+), normed runs only", title)
    if match:
        return t("lab.plot.normed", lang, lr=match.group(1))
    match = re.fullmatch(r"training loss at lr (\S+)", title)
    return t("lab.plot.training loss at lr", lang, lr=match.group(1)) if match else title


def _legend(label: str, lang: str) -> str:
    from normkata.i18n import has, t

    for key in (f"lab.legend.{label}", f"lab.variant.{label}"):
        if has(key):
            return t(key, lang)
    match = re.fullmatch(r"(Pre|Post)-LN, (\d+) layers", label)
    return t("lab.legend.depth", lang, placement=match.group(1), depth=match.group(2)) if match else label


def _two_cells(text: str) -> str:
    """`text` with a filler after each wide (CJK) character: plotext gives every character one
    cell, so without it a Chinese label overruns the frame by one column per character."""
    return "".join(c + _FILLER if unicodedata.east_asian_width(c) in ("W", "F") else c for c in text)
