"""Lab: what replaced or moved the norm, trained on TinyShakespeare over a learning-rate sweep.

Pre-LN with LayerNorm, RMSNorm and Dynamic Tanh (DyT, "Transformers without Normalization"),
and the same RMSNorm stack with Gemma 2/3's sandwich placement (a norm on each sublayer's input
and output). The table and plots are `lab compare`'s, on the same model, data and schedule.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from normkata.labs import compare
from normkata.labs.common import LabOptions

CONFIGS = (  # label, placement, norm
    ("Pre-LN + LayerNorm", "pre", "layernorm"),
    ("Pre-LN + RMSNorm", "pre", "rmsnorm"),
    ("Pre-LN + DyT", "pre", "dyt"),
    ("Sandwich + RMSNorm", "sandwich", "rmsnorm"),
)


def run(
    options: LabOptions,
    *,
    quick: bool,
    data_path: Path | None,
    steps: int | None = None,
    lrs: tuple[float, ...] | None = None,
    progress: Any = None,
) -> dict[str, Any]:
    return compare.run(
        options, quick=quick, data_path=data_path, steps=steps, lrs=lrs, progress=progress, configs=CONFIGS
    )


render = compare.render
curves = compare.curves
