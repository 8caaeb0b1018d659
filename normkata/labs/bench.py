"""`normkata bench`: RMSNorm vs LayerNorm speed as ms, GB/s and % of a measured memory copy.

Document 000 reports RMSNorm 8.7% faster forward and 11.1% faster backward than LayerNorm on
MiniMind-small (hidden 512). This measures the same comparison on this machine.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from functools import partial
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from normkata.labs.common import LabOptions
from normkata.paths import solutions_dir

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def _median_seconds(fn: Callable[[], Any], min_run_time: float) -> float:
    from torch.utils import benchmark

    return benchmark.Timer(stmt="fn()", globals={"fn": fn}).blocked_autorange(min_run_time=min_run_time).median


def _load(path: Any, cls: str) -> type[nn.Module] | None:
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except Exception:
        return None
    found = getattr(module, cls, None)
    return found if isinstance(found, type) else None


def implementations(
    options: LabOptions, d: int, dtype: torch.dtype
) -> tuple[dict[str, tuple[str, nn.Module]], list[str]]:
    """name -> (kind, module on device); notes for the learner's files that could not be used."""
    device = options.device
    found: dict[str, tuple[str, nn.Module]] = {
        "torch F.rms_norm": ("rmsnorm", nn.RMSNorm(d, eps=1e-5)),
        "torch F.layer_norm": ("layernorm", nn.LayerNorm(d, eps=1e-5)),
    }
    notes = []
    sources = [("reference", solutions_dir())]
    if options.workspace is not None:
        sources.append(("yours", options.workspace))
    for owner, folder in sources:
        for kata, cls in (("rmsnorm", "RMSNorm"), ("layernorm", "LayerNorm")):
            path = folder / f"{kata}.py"
            if not path.is_file():
                continue
            loaded = _load(path, cls)
            try:
                module = loaded(d, eps=1e-5) if loaded else None
                if module is not None:
                    module(torch.randn(2, d))
            except Exception as exc:
                notes.append(f"{owner} {cls} skipped: {type(exc).__name__}: {str(exc)[:80]}")
                continue
            if module is None:
                notes.append(f"{owner} {cls} skipped: {path} does not import or has no class {cls}")
                continue
            found[f"{owner} {cls}"] = (kata, module)
    return {name: (kind, m.to(device=device, dtype=dtype)) for name, (kind, m) in found.items()}, notes


def _functional(module: nn.Module) -> Callable[[torch.Tensor], torch.Tensor]:
    """torch's functional op called with the module's own parameters (the "torch F.*" rows)."""
    if isinstance(module, nn.RMSNorm):
        return lambda v: F.rms_norm(v, module.normalized_shape, module.weight, module.eps)
    if isinstance(module, nn.LayerNorm):
        return lambda v: F.layer_norm(v, module.normalized_shape, module.weight, module.bias, module.eps)
    raise TypeError(f"no functional form for {type(module).__name__}")


def run(
    options: LabOptions,
    *,
    shape: tuple[int, int, int] = (8, 512, 512),
    dtype: str = "float32",
    min_run_time: float = 0.3,
) -> dict[str, Any]:
    torch.manual_seed(options.seed)
    dt = DTYPES[dtype]
    device = options.device
    x = torch.randn(*shape, device=device, dtype=dt)
    grad = torch.randn_like(x)
    size = x.numel() * x.element_size()
    copy_target = torch.empty_like(x)
    copy_s = _median_seconds(lambda: copy_target.copy_(x), min_run_time)
    copy_gbs = 2 * size / copy_s / 1e9
    rows = []
    modules, notes = implementations(options, shape[-1], dt)
    for name, (kind, module) in modules.items():
        fn: Callable[[torch.Tensor], torch.Tensor] = _functional(module) if name.startswith("torch ") else module
        with torch.no_grad():
            forward_s = _median_seconds(partial(fn, x), min_run_time)
        leaf = x.detach().requires_grad_(True)

        def both(fn: Callable[[torch.Tensor], torch.Tensor] = fn, leaf: torch.Tensor = leaf) -> None:
            fn(leaf).backward(grad)
            leaf.grad = None

        backward_s = max(_median_seconds(both, min_run_time) - forward_s, 1e-9)
        forward_gbs = 2 * size / forward_s / 1e9  # read x, write y
        backward_gbs = 3 * size / backward_s / 1e9  # read x and dy, write dx
        rows.append(
            {
                "implementation": name,
                "norm": kind,
                "forward_ms": forward_s * 1e3,
                "backward_ms": backward_s * 1e3,
                "forward_gbs": forward_gbs,
                "backward_gbs": backward_gbs,
                "forward_pct_copy": 100 * forward_gbs / copy_gbs,
                "backward_pct_copy": 100 * backward_gbs / copy_gbs,
            }
        )
    return {"device": device, "dtype": dtype, "shape": list(shape), "copy_gbs": copy_gbs, "rows": rows, "notes": notes}


def render(console: Any, result: dict[str, Any]) -> None:
    from rich.table import Table

    from normkata.i18n import t
    from normkata.options import safe_lang

    lang = safe_lang()
    shape = "×".join(map(str, result["shape"]))
    title = t(
        "lab.bench.title",
        lang,
        shape=shape,
        dtype=result["dtype"],
        device=result["device"],
        copy=f"{result['copy_gbs']:.1f}",
    )
    table = Table(title=title)
    copy = t("lab.bench.copy", lang)
    names = (t("lab.bench.forward", lang), "GB/s", copy, t("lab.bench.backward", lang), "GB/s", copy)
    table.add_column(t("lab.bench.implementation", lang), justify="left")
    for column in names:
        table.add_column(column, justify="right")
    for row in result["rows"]:
        table.add_row(
            row["implementation"],
            f"{row['forward_ms']:.3f}",
            f"{row['forward_gbs']:.1f}",
            f"{row['forward_pct_copy']:.0f}%",
            f"{row['backward_ms']:.3f}",
            f"{row['backward_gbs']:.1f}",
            f"{row['backward_pct_copy']:.0f}%",
        )
    console.print(table)
    by_name = {r["implementation"]: r for r in result["rows"]}
    rms, ln = by_name.get("torch F.rms_norm"), by_name.get("torch F.layer_norm")
    if rms and ln:
        fwd, bwd = rms["forward_ms"] / ln["forward_ms"], rms["backward_ms"] / ln["backward_ms"]
        console.print(t("lab.bench.summary", lang, fwd=f"{fwd:.2f}", bwd=f"{bwd:.2f}"))
    for note in result["notes"]:
        console.print(f"[muted]{note}[/]")
