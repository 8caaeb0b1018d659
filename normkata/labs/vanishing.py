"""Lab 1: activations and gradients through a deep stack, with and without normalization.

Document 001's exp1: without normalization the activation std decays layer after layer
(1.0 -> 0.016 by layer 8); with it, it stays put.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from normkata.labs.common import LabOptions, norm_factory

VARIANTS = ("none", "layernorm", "rmsnorm")


class DeepStack(nn.Module):
    """layers × (Linear without bias -> norm -> tanh), PyTorch's default Linear init scaled by `gain`."""

    def __init__(self, layers: int, width: int, make_norm: Any, gain: float) -> None:
        super().__init__()
        # No bias: a bias floor would hide the decay (biases alone keep the std near 1/sqrt(3·width)).
        linears = [nn.Linear(width, width, bias=False) for _ in range(layers)]
        with torch.no_grad():
            for linear in linears:
                linear.weight.mul_(gain)
        self.linears = nn.ModuleList(linears)
        self.norms = nn.ModuleList([make_norm(width) for _ in range(layers)])

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        activations = []
        for linear, norm in zip(self.linears, self.norms, strict=True):
            x = torch.tanh(norm(linear(x)))
            activations.append(x)
        return x, activations

    def weight_grads(self) -> list[torch.Tensor]:
        """Each Linear's weight gradient, after a backward pass."""
        grads = []
        for linear in self.linears:
            assert isinstance(linear, nn.Linear) and linear.weight.grad is not None
            grads.append(linear.weight.grad)
        return grads


def run(
    options: LabOptions, *, layers: int = 10, width: int = 256, batch: int = 512, gain: float = 1.0
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = [{"layer": i + 1} for i in range(layers)]
    for variant in VARIANTS:
        torch.manual_seed(options.seed)
        model = DeepStack(layers, width, norm_factory(variant, options), gain).to(options.device)
        x = torch.randn(batch, width, device=options.device, generator=None)
        out, activations = model(x)
        for act in activations:
            act.retain_grad()
        out.pow(2).mean().backward()
        for i, (act, grad) in enumerate(zip(activations, model.weight_grads(), strict=True)):
            rows[i][f"std_{variant}"] = act.detach().std().item()
            rows[i][f"grad_{variant}"] = grad.norm().item()
    return {"layers": layers, "width": width, "gain": gain, "seed": options.seed, "rows": rows}


def series(result: dict[str, Any], key: str) -> dict[str, tuple[list[float], list[float]]]:
    xs = [row["layer"] for row in result["rows"]]
    return {variant: (xs, [row[f"{key}_{variant}"] for row in result["rows"]]) for variant in VARIANTS}


def render(console: Any, result: dict[str, Any], lang: str) -> None:
    from rich.table import Table

    from normkata.i18n import t

    table = Table(title=t("lab.vanishing.title", lang, width=result["width"], gain=result["gain"]))
    table.add_column(t("lab.vanishing.layer", lang), justify="right")
    for variant in VARIANTS:
        table.add_column(t("lab.vanishing.col.std", lang, v=t(f"lab.short.{variant}", lang)), justify="right")
    for variant in VARIANTS:
        table.add_column(t("lab.vanishing.col.grad", lang, v=t(f"lab.short.{variant}", lang)), justify="right")
    for row in result["rows"]:
        table.add_row(
            str(row["layer"]),
            *(f"{row[f'std_{v}']:.4g}" for v in VARIANTS),
            *(f"{row[f'grad_{v}']:.3g}" for v in VARIANTS),
        )
    console.print(table)
    first, last = result["rows"][0], result["rows"][-1]
    for variant in VARIANTS:
        ratio = last[f"std_{variant}"] / first[f"std_{variant}"]
        name = t(f"lab.variant.{variant}", lang)
        text = t("lab.vanishing.ratio", lang, last=result["layers"], ratio=f"{ratio:.3g}")
        console.print(f"  {t('lab.line', lang, name=name, text=text)}")
    for line in explain(result, lang):
        console.print(line)


def explain(result: dict[str, Any], lang: str) -> list[str]:
    """What to look for, with this run's numbers: the no-norm decay, tanh's 0.63, the flat gradient."""
    import math

    from normkata.i18n import t

    rows = result["rows"]
    first, last = rows[0]["std_none"], rows[-1]["std_none"]
    shrink = (last / first) ** (1 / max(1, len(rows) - 1)) if first > 0 and last > 0 else float("nan")
    normed = [row[f"std_{v}"] for row in rows for v in ("layernorm", "rmsnorm")]
    grads = [row["grad_none"] for row in rows]
    normed_grads = [row[f"grad_{v}"] for row in rows for v in ("layernorm", "rmsnorm")]
    level = math.exp(sum(math.log(g) for g in grads) / len(grads)) if all(g > 0 for g in grads) else float("nan")
    other = (
        math.exp(sum(math.log(g) for g in normed_grads) / len(normed_grads))
        if all(g > 0 for g in normed_grads)
        else float("nan")
    )
    gap = round(math.log10(other / level)) if level > 0 and other > 0 else 0
    return [
        t("lab.look", lang),
        "  • " + t("lab.vanishing.look.1", lang, shrink=f"{shrink:.2f}", first=f"{first:.3g}", last=f"{last:.3g}"),
        "  • " + t("lab.vanishing.look.2", lang, std=f"{sum(normed) / len(normed):.2f}"),
        "  • " + t("lab.vanishing.look.3", lang, grad=f"{level:.0e}", gap=t("lab.orders", lang, n=gap)),
    ]
