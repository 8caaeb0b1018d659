"""Lab 4: fp16 and bf16 in numbers: overflow of x², eps underflow, swamping, cancellation."""

from __future__ import annotations

from typing import Any

import torch

from normkata.labs.common import LabOptions, learner_class


def _naive_rms(x: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def _upcast_rms(x: torch.Tensor, eps: float) -> torch.Tensor:
    h = x.float()
    return (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


#: The table's columns: each value sits under the dtype it was computed in.
DTYPES = (torch.float16, torch.bfloat16, torch.float32)
COLUMNS = ("float16", "bfloat16", "float32")


def run(options: LabOptions) -> dict[str, Any]:
    device = options.device
    rows: list[dict[str, Any]] = []

    def add(group: str, what: str, values: dict[torch.dtype, Any], note: str, key: str, **fields: Any) -> None:
        # `what` and `note` stay in English in the data files; `key` names them for the table.
        # A dtype missing from `values` was not measured: None, shown as "-".
        by_column = {name: values.get(dtype) for dtype, name in zip(DTYPES, COLUMNS, strict=True)}
        rows.append({"group": group, "what": what, **by_column, "note": note, "key": key, "fields": fields})

    finfo = {dt: torch.finfo(dt) for dt in DTYPES}
    add(
        "range",
        "largest finite value",
        {dt: f.max for dt, f in finfo.items()},
        "fp16 has 5 exponent bits, bf16 fp32's 8",
        "max",
    )
    add(
        "range",
        "smallest normal value",
        {dt: f.tiny for dt, f in finfo.items()},
        "below it: subnormals, then 0",
        "tiny",
    )
    add(
        "range",
        "machine epsilon (step at 1.0)",
        {dt: f.eps for dt, f in finfo.items()},
        "bf16 keeps 7 mantissa bits, fp16 10",
        "eps",
    )
    square = {dt: (torch.tensor(300.0, dtype=dt, device=device) ** 2).item() for dt in DTYPES}
    add("overflow", "300² (the Pre-Norm document)", square, "fp16: 90000 ≥ 65520 rounds to inf", "square")
    row = torch.full((1, 64), 300.0, device=device)
    naive = {dt: _naive_rms(row.to(dt), 1e-5).float().mean().item() for dt in DTYPES}
    add(
        "overflow",
        "naive RMSNorm of a row of 300s (true: 1)",
        naive,
        "x · rsqrt(inf) = 0: the signal is wiped out",
        "naive",
    )
    low = DTYPES[:2]  # the upcast only matters below fp32
    upcast = {dt: _upcast_rms(row.to(dt), 1e-5).float().mean().item() for dt in low}
    add("overflow", "RMSNorm with fp32 upcast, same row", upcast, "x.float() before squaring fixes it", "upcast")
    for eps in (1e-5, 1e-8):
        stored = {dt: torch.tensor(eps, dtype=dt).item() for dt in DTYPES}
        add("eps", f"eps {eps:g} stored", stored, "fp16's smallest subnormal is ~5.96e-8", "eps_stored", eps=f"{eps:g}")
        zero = torch.zeros(1, 16, device=device)
        out = {dt: _naive_rms(zero.to(dt), eps).float().abs().max().item() for dt in DTYPES}
        add(
            "eps",
            f"naive RMSNorm of a zero row, eps {eps:g}",
            out,
            "0 is right; NaN means eps became 0 (0 · rsqrt(0))",
            "eps_zero",
            eps=f"{eps:g}",
        )
    squares = torch.randn(4096, generator=torch.Generator().manual_seed(options.seed)).pow(2)
    exact = squares.double().sum().item()
    running = {}
    for dt in DTYPES:
        total = torch.zeros((), dtype=dt)
        for value in squares.to(dt):  # one rounding per add, as a naive low-precision kernel would
            total = total + value
        running[dt] = total.double().item() / exact
    add(
        "swamping",
        "sum of 4096 squares, one add at a time (÷ exact)",
        running,
        "the sum stalls once it dwarfs each term: accumulate in fp32",
        "swamp",
    )
    x = torch.randn(64, 256, generator=torch.Generator().manual_seed(options.seed)) + 1000.0
    mean = x.mean(-1, keepdim=True)
    one_pass = (x * x).mean(-1, keepdim=True) - mean * mean
    exact_var = x.double().var(-1, unbiased=False, keepdim=True)
    add(
        "cancellation",
        "fp32 one-pass variance at mean 1000: max error",
        {torch.float32: (one_pass.double() - exact_var).abs().max().item()},
        "E[x²] − E[x]² loses its digits; two-pass error is ~1e-6",
        "cancel",
    )
    if options.use_mine:
        mine = learner_class(options, "rmsnorm", "RMSNorm")
        outs = {}
        for dt in DTYPES:
            module = mine(64, eps=1e-5).to(device=device, dtype=dt)
            with torch.no_grad():
                outs[dt] = module(row.to(dt)).float().mean().item()
        add("yours", "your RMSNorm on the row of 300s (true: 1)", outs, "from your workspace's rmsnorm.py", "yours")
    return {"device": device, "columns": list(COLUMNS), "rows": rows}


def render(console: Any, result: dict[str, Any], lang: str) -> None:
    from rich.table import Table

    from normkata.i18n import t
    from normkata.ui.paragraph import Paragraph

    table = Table(title=t("lab.precision.title", lang))
    table.add_column(t("lab.precision.what", lang))
    for column in COLUMNS:
        table.add_column(column, justify="right")
    table.add_column(t("lab.precision.why", lang))
    for row in result["rows"]:
        key, fields = f"lab.prec.{row.get('key')}", row.get("fields", {})
        what = t(key, lang, **fields) if row.get("key") else row["what"]
        note = t(f"{key}.note", lang) if row.get("key") else row["note"]
        table.add_row(Paragraph(what), *(_fmt(row[column]) for column in COLUMNS), Paragraph(note))
    console.print(table)
    console.print(t("lab.look", lang))
    console.print("  • " + t("lab.precision.look.1", lang))


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
