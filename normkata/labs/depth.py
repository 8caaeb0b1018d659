"""Lab 3: Pre-LN vs Post-LN as the stack gets deeper, at one fixed learning rate, no warmup.

Document 001's exp3 expects: at 4 layers both are similar; at 8, Pre-LN is clearly more stable
and Post-LN needs a smaller learning rate.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from normkata.labs.common import LabOptions, norm_factory
from normkata.labs.data import char_data
from normkata.labs.model import Config
from normkata.labs.training import Tracker


@dataclass(frozen=True)
class Settings:
    """One run's model and schedule; the fields' order is the JSON's."""

    d_model: int
    heads: int
    block: int
    batch: int
    steps: int
    depths: tuple[int, ...]
    lr: float


QUICK = Settings(d_model=64, heads=4, block=32, batch=16, steps=60, depths=(2, 4, 8), lr=1e-2)
FULL = Settings(d_model=128, heads=4, block=64, batch=16, steps=150, depths=(4, 8, 12), lr=1e-2)


def run(
    options: LabOptions,
    *,
    quick: bool,
    data_path: Path | None,
    lr: float | None = None,
    depths: tuple[int, ...] | None = None,
    steps: int | None = None,
    progress: Any = None,
) -> dict[str, Any]:
    base = QUICK if quick else FULL
    settings = replace(base, lr=lr or base.lr, depths=depths or base.depths, steps=steps or base.steps)
    data = char_data(data_path)
    make_norm = norm_factory("layernorm", options)
    runs = []
    tracker = Tracker(progress, 2 * len(settings.depths) * settings.steps)
    for depth in settings.depths:
        for placement in ("pre", "post"):
            label = f"{'Pre' if placement == 'pre' else 'Post'}-LN, {depth} layers"
            config = Config(data.vocab, settings.block, depth, settings.d_model, settings.heads, placement)
            result = tracker.train(
                label,
                config,
                make_norm,
                data,
                steps=settings.steps,
                lr=settings.lr,
                batch=settings.batch,
                seed=options.seed,
                device=options.device,
            )
            runs.append({**result.to_json(), "depth": depth, "placement": placement})
    return {"settings": {**asdict(settings), "depths": list(settings.depths)}, "seed": options.seed, "runs": runs}


def render(console: Any, result: dict[str, Any], lang: str) -> None:
    from rich.table import Table

    from normkata.i18n import t

    s = result["settings"]
    table = Table(title=t("lab.depth.title", lang, lr=f"{s['lr']:g}", steps=s["steps"]))
    for column in (t("lab.depth.layers", lang), t("lab.depth.pre", lang), t("lab.depth.post", lang), "Post − Pre"):
        table.add_column(column, justify="right")
    for depth in s["depths"]:
        pre, post = (
            next(r for r in result["runs"] if r["depth"] == depth and r["placement"] == p) for p in ("pre", "post")
        )
        show = lambda r: f"NaN@{r['first_nan']}" if r["first_nan"] is not None else f"{r['final_loss']:.3f}"  # noqa: E731
        gap = (
            "-" if None in (pre["final_loss"], post["final_loss"]) else f"{post['final_loss'] - pre['final_loss']:+.3f}"
        )
        table.add_row(str(depth), show(pre), show(post), gap)
    console.print(table)
    console.print(t("lab.look", lang))
    console.print("  • " + t("lab.depth.look.1", lang))


def curves(result: dict[str, Any]) -> dict[str, tuple[list[float], list[float]]]:
    return {
        r["label"]: (list(range(len(r["losses"]))), [v if v is not None else float("nan") for v in r["losses"]])
        for r in result["runs"]
    }
