"""One short training run of the character Transformer, watched for divergence."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from normkata.labs.data import CharData
from normkata.labs.model import CharTransformer, Config


@dataclass
class Run:
    label: str
    lr: float
    losses: list[float] = field(default_factory=list)
    first_nan: int | None = None

    @property
    def initial(self) -> float:
        return self.losses[0] if self.losses else math.nan

    @property
    def final(self) -> float:
        """Mean of the last tenth of the losses; NaN if the run diverged."""
        if self.first_nan is not None or not self.losses:
            return math.nan
        tail = self.losses[-max(1, len(self.losses) // 10) :]
        return sum(tail) / len(tail)

    @property
    def converged(self) -> bool:
        """Finite, and the loss fell by at least 15% from where it started."""
        return self.first_nan is None and self.final < 0.85 * self.initial

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "lr": self.lr,
            "converged": self.converged,
            "first_nan": self.first_nan,
            "final_loss": None if math.isnan(self.final) else round(self.final, 4),
            "losses": [None if math.isnan(v) else round(v, 4) for v in self.losses],
        }


def train(
    label: str,
    config: Config,
    make_norm: Callable[[int], torch.nn.Module],
    data: CharData,
    *,
    steps: int,
    lr: float,
    batch: int,
    seed: int,
    device: str,
    on_step: Callable[[], None] = lambda: None,
) -> Run:
    """AdamW at a constant learning rate, no warmup and no clipping: instability shows."""
    torch.manual_seed(seed)
    model = CharTransformer(config, make_norm).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.0)
    generator = torch.Generator().manual_seed(seed)
    run = Run(label, lr)
    for step in range(steps):
        x, y = data.batch("train", batch, config.block, generator)
        loss = model(x.to(device), y.to(device))
        value = loss.item()
        run.losses.append(value)
        on_step()
        if not math.isfinite(value):
            run.first_nan = step
            break
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return run


class Tracker:
    """One Rich progress bar over many runs (or nothing, when progress is None)."""

    def __init__(self, progress: Any, total_steps: int) -> None:
        self.progress = progress
        self.task = progress.add_task("training", total=total_steps) if progress else None

    def train(
        self,
        label: str,
        config: Config,
        make_norm: Callable[[int], torch.nn.Module],
        data: CharData,
        *,
        steps: int,
        **kwargs: Any,
    ) -> Run:
        if self.progress is None:
            return train(label, config, make_norm, data, steps=steps, **kwargs)
        self.progress.update(self.task, description=label)
        run = train(
            label, config, make_norm, data, steps=steps, on_step=lambda: self.progress.advance(self.task), **kwargs
        )
        self.progress.advance(self.task, steps - len(run.losses))  # a diverged run stops early
        return run
