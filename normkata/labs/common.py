"""What every lab shares: options, the norms it can build (torch's or the learner's), output."""

from __future__ import annotations

import csv
import importlib.util
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from normkata.errors import InputError


@dataclass
class LabOptions:
    device: str = "cpu"
    seed: int = 0
    out: Path | None = None
    use_mine: bool = False
    workspace: Path | None = None


def resolve_device(choice: str) -> str:
    if choice == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if choice == "cuda" and not torch.cuda.is_available():
        raise InputError("--device cuda: CUDA is not available on this machine")
    return choice


def learner_class(options: LabOptions, kata: str, cls: str) -> type[nn.Module]:
    """The learner's own class from <workspace>/<kata>.py, for --use-mine."""
    assert options.workspace is not None
    path = options.workspace / f"{kata}.py"
    if not path.is_file():
        raise InputError(f"--use-mine: {path} not found (run `normkata kata {kata}` and write it first)")
    spec = importlib.util.spec_from_file_location(f"learner_{kata}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except Exception as exc:  # the learner's file: any error is theirs to see, in one line
        raise InputError(f"--use-mine: {path} failed to import: {type(exc).__name__}: {exc}") from None
    found = getattr(module, cls, None)
    if not isinstance(found, type):
        raise InputError(f"--use-mine: {path} has no class {cls}")
    return found


def norm_factory(kind: str, options: LabOptions, eps: float = 1e-5) -> Callable[[int], nn.Module]:
    """A constructor d -> norm module: torch's own, or with --use-mine the learner's kata class."""
    if kind == "none":
        return lambda d: nn.Identity()
    if options.use_mine:
        kata, cls = {"rmsnorm": ("rmsnorm", "RMSNorm"), "layernorm": ("layernorm", "LayerNorm")}[kind]
        mine = learner_class(options, kata, cls)
        return lambda d: mine(d, eps=eps)
    if kind == "rmsnorm":
        return lambda d: nn.RMSNorm(d, eps=eps)
    return lambda d: nn.LayerNorm(d, eps=eps)


def write_outputs(
    options: LabOptions, name: str, result: dict[str, Any], table: Sequence[dict] | None = None
) -> list[Path]:
    """--out DIR: the raw numbers as JSON (and CSV for a table); plots are added by the lab."""
    if options.out is None:
        return []
    options.out.mkdir(parents=True, exist_ok=True)
    written = [options.out / f"{name}.json"]
    written[0].write_text(json.dumps(result, indent=2, default=_jsonable), encoding="utf-8")
    if table:
        path = options.out / f"{name}.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(table[0]))
            writer.writeheader()
            writer.writerows(table)
        written.append(path)
    return written


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and value != value:
        return None
    return str(value)


def save_plot(
    options: LabOptions,
    name: str,
    series: dict[str, tuple[list[float], list[float]]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    logy: bool = False,
) -> Path | None:
    """A PNG line plot under --out (matplotlib, loaded only when asked for)."""
    if options.out is None:
        return None
    options.out.mkdir(parents=True, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    for label, (xs, ys) in series.items():
        axes.plot(xs, ys, label=label)
    if logy:
        axes.set_yscale("log")
    axes.set(title=title, xlabel=xlabel, ylabel=ylabel)
    axes.legend()
    axes.grid(alpha=0.3)
    path = options.out / f"{name}.png"
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def terminal_plot(
    series: dict[str, tuple[list[float], list[float]]],
    *,
    title: str,
    logy: bool = False,
    width: int = 72,
    height: int = 16,
) -> str:
    """The same plot as text, for a learner on SSH (plotext, no colours)."""
    import plotext as plt

    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("clear")
    for label, (xs, ys) in series.items():
        finite = [
            (x, y) for x, y in zip(xs, ys, strict=True) if y == y and abs(y) != float("inf") and (y > 0 or not logy)
        ]
        if finite:
            plt.plot([x for x, _ in finite], [y for _, y in finite], label=_two_cells(label))
    if logy:
        plt.yscale("log")
    plt.title(_two_cells(_translated_title(title)))
    return plt.build().replace(_FILLER, "")


#: Private-use character that holds the second cell of a wide character while plotext lays out.
_FILLER = "\ue000"


def _two_cells(text: str) -> str:
    """`text` with a filler after each wide (CJK) character: plotext gives every character one cell,
    so without it a Chinese legend or title overruns the frame by one column per character."""
    import unicodedata

    return "".join(c + _FILLER if unicodedata.east_asian_width(c) in ("W", "F") else c for c in text)


def _translated_title(title: str) -> str:
    """A plot title in the learner's language (PNG files keep English: fonts may lack CJK glyphs)."""
    import re

    from normkata.i18n import has, t
    from normkata.options import safe_lang

    lang = safe_lang()
    if has(f"lab.plot.{title}"):
        return t(f"lab.plot.{title}", lang)
    match = re.fullmatch(r"training loss at lr (\S+)", title)
    return t("lab.plot.training loss at lr", lang, lr=match.group(1)) if match else title
