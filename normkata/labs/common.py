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

from normkata.errors import CUDA_MISSING, InputError


@dataclass
class LabOptions:
    device: str = "cpu"
    seed: int = 0
    out: Path | None = None
    use_mine: bool = False
    workspace: Path | None = None
    #: The learner's language: the tables, plots and notes a lab shows (its files stay English).
    lang: str = "en"


def resolve_device(choice: str) -> str:
    if choice == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if choice == "cuda" and not torch.cuda.is_available():
        raise InputError(CUDA_MISSING)
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
        kata, cls = {"rmsnorm": ("rmsnorm", "RMSNorm"), "layernorm": ("layernorm", "LayerNorm"), "dyt": ("dyt", "DyT")}[
            kind
        ]
        mine = learner_class(options, kata, cls)
        return (lambda d: mine(d)) if kind == "dyt" else (lambda d: mine(d, eps=eps))
    if kind == "dyt":
        from normkata.labs.model import DyT

        return lambda d: DyT(d)
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
