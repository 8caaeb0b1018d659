"""Check every real-world fixture's expectation with torch alone (not with normkata's grader).

Run: .venv/bin/python tests/grading/realworld/verify_expectations.py [--markdown] [NAME ...]

Each fixture is imported as a module and put through a battery of checks against torch's own
modules in float64 (nn.RMSNorm semantics with an explicit eps, F.layer_norm, nn.BatchNorm1d, and
solutions/prenorm.py for the Pre-Norm kata), with the tolerances of docs/grading.md (the table
`normkata.grading.contract.TOLERANCES` holds; written again below, as torch alone). A `pass`
fixture must clear every check; a `fail` fixture must miss at least one. When the header names a
diagnosis, the fixture's output must also match the reference run *with that mistake*
(checked by `DIAGNOSES` below). Not a pytest module: it is slow-ish and prints evidence.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
KATAS = ("rmsnorm", "layernorm", "batchnorm", "prenorm")
TOL = {torch.float32: 1e-5, torch.bfloat16: 1.6e-2, torch.float16: 2e-3}
GRAD_TOL = 1e-4
BLOCK_TOL = {torch.float32: 1e-4, torch.bfloat16: 3e-2, torch.float16: 4e-3}


# -- helpers -------------------------------------------------------------------------------------


def load(path: Path, name: str | None = None):  # type: ignore[no-untyped-def]
    name = name or f"realworld_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # as normkata's worker does (dataclasses need it)
    spec.loader.exec_module(module)
    return module


def randn(shape, seed: int, scale: float = 1.0, shift: float = 0.0) -> torch.Tensor:  # type: ignore[no-untyped-def]
    g = torch.Generator().manual_seed(seed)
    return torch.randn(tuple(shape), generator=g) * scale + shift


def max_err(got: torch.Tensor, exp: torch.Tensor, tol: float, atol: float | None = None) -> tuple[bool, float]:
    """rtol = tol, atol = atol or tol, in float64; NaN/inf where the reference is finite fails."""
    atol = tol if atol is None else atol
    if got.shape != exp.shape:
        return False, math.inf
    g, e = got.detach().double().cpu(), exp.detach().double().cpu()
    if not torch.isfinite(g).all() and torch.isfinite(e).all():
        return False, math.nan
    err = (g - e).abs()
    ok = bool((err <= atol + tol * e.abs()).all())
    return ok, float(err.max()) if err.numel() else 0.0


def used_share(got: torch.Tensor, exp: torch.Tensor, tol: float, atol: float | None = None) -> float:
    """The largest share of the allowance (atol + rtol·|expected|) that one element uses."""
    atol = tol if atol is None else atol
    g, e = got.detach().double().cpu(), exp.detach().double().cpu()
    return float(((g - e).abs() / (atol + tol * e.abs())).max()) if g.numel() else 0.0


@dataclass
class Report:
    checks: list[tuple[str, bool, str]] = field(default_factory=list)

    def add(self, name: str, ok: bool, detail: str = "") -> None:
        self.checks.append((name, ok, detail))

    def compare(self, name: str, got, exp, tol: float, atol: float | None = None, dtype=None) -> float:  # type: ignore[no-untyped-def]
        if dtype is not None and got.dtype != dtype:
            self.add(name, False, f"dtype {got.dtype}, expected {dtype}")
            return math.inf
        ok, err = max_err(got, exp, tol, atol)
        share = used_share(got, exp, tol, atol) if got.shape == exp.shape else math.inf
        self.add(
            name,
            ok,
            f"max abs err {err:.3g} (tol {tol:g}{'' if atol is None else f', atol {atol:.3g}'}; "
            f"{share:.0%} of the allowance)",
        )
        return err

    def run(self, name: str, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - a learner's exception is a finding
            self.add(name, False, f"raised {type(exc).__name__}: {str(exc).splitlines()[0][:120]}")

    @property
    def failed(self) -> list[tuple[str, bool, str]]:
        return [c for c in self.checks if not c[1]]


def set_state(module: nn.Module, state: dict[str, torch.Tensor]) -> nn.Module:
    module.load_state_dict(state, strict=True)
    return module


# -- RMSNorm -------------------------------------------------------------------------------------


def rms_ref(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    return F.rms_norm(x.double(), (x.shape[-1],), w.double(), eps)


def check_rmsnorm(mod) -> Report:  # type: ignore[no-untyped-def]
    cls, r = mod.RMSNorm, Report()

    def state() -> None:
        m = cls(6)
        params = dict(m.named_parameters())
        ok = list(params) == ["weight"] and torch.equal(params["weight"].detach(), torch.ones(6))
        r.add("state: parameters == ['weight'] (ones)", ok, f"{ {k: v.detach().tolist() for k, v in params.items()} }")
        r.add("state: state_dict keys", list(m.state_dict()) == ["weight"], str(list(m.state_dict())))
        r.add("state: dtype=bfloat16", cls(4, dtype=torch.bfloat16).weight.dtype == torch.bfloat16)
        r.add("state: .to(float64)", cls(4).to(torch.float64).weight.dtype == torch.float64)

    def load_torch() -> None:
        t = nn.RMSNorm(8, eps=1e-5)
        t.weight.data = randn([8], 5)
        m = set_state(cls(8), t.state_dict())
        x = randn([3, 8], 6)
        r.compare("state: load nn.RMSNorm state_dict (strict) + forward", m(x), rms_ref(x, t.weight, 1e-5), 1e-5)

    r.run("state", state)
    r.run("state: load nn.RMSNorm state_dict (strict) + forward", load_torch)

    def fwd(label: str, x: torch.Tensor, eps: float = 1e-5, dtype=torch.float32, seed: int = 100) -> None:  # type: ignore[no-untyped-def]
        def go() -> None:
            d = x.shape[-1]
            w = randn([d], seed, scale=0.5, shift=1.0)
            m = cls(d, eps=eps)
            m.weight.data.copy_(w)
            m = m.to(dtype)
            xq = x.to(dtype)
            r.compare(label, m(xq), rms_ref(xq, m.weight.detach(), eps), TOL[dtype], dtype=dtype)

        r.run(label, go)

    for i, shape in enumerate([(2, 5, 8), (3, 16), (4, 4), (4, 1, 7), (1, 1), (8,), (2, 2, 3, 9)]):
        fwd(f"fp32 2·N(0,1)+0.5 {shape}", randn(shape, i, 2.0, 0.5), seed=50 + i)
    fwd("fp32 small-variance 1e-3·N(0,1) (4,32)", randn((4, 32), 11, 1e-3))
    zero = randn((4, 16), 12)
    zero[1] = 0.0
    zero[3] = 0.0
    fwd("fp32 all-zero rows 1,3 (4,16)", zero)
    const = torch.full((3, 10), 4.0)
    const[1] = -0.02
    fwd("fp32 constant rows 4.0 / -0.02", const)
    fwd("fp32 large 1e3·N(0,1)+1e3 (3,24)", randn((3, 24), 13, 1e3, 1e3))
    fwd("fp32 eps=1e-2 on 0.05·N(0,1)", randn((4, 12), 14, 0.05), eps=1e-2)
    fwd("fp32 eps=1e-6 on 0.05·N(0,1)", randn((4, 12), 14, 0.05), eps=1e-6)
    fwd("fp16 N(0,1) (4,6,64)", randn((4, 6, 64), 20), dtype=torch.float16)
    fwd("fp16 activations near 300 (3,64)", 300 * (1 + 0.1 * randn((3, 64), 21)), dtype=torch.float16)
    fwd("bf16 N(0,1) (4,6,64)", randn((4, 6, 64), 22), dtype=torch.bfloat16)
    fwd("bf16 large 500·N(0,1) (3,128)", randn((3, 128), 23, 500.0), dtype=torch.bfloat16)

    def second_call() -> None:
        m = cls(16)
        m.weight.data.copy_(randn([16], 30, 0.5, 1.0))
        m(randn((4, 16), 31))
        x2 = randn((4, 16), 32, 3.0)
        r.compare("fp32 second call on a new input (4,16)", m(x2), rms_ref(x2, m.weight, 1e-5), 1e-5)

    r.run("fp32 second call on a new input (4,16)", second_call)

    def grads() -> None:
        for shape in [(2, 5, 8), (7, 3)]:
            d = shape[-1]
            w, x, dy = randn([d], 41, 0.5, 1.0), randn(shape, 40), randn(shape, 42)
            m = cls(d)
            m.weight.data.copy_(w)
            xg = x.clone().requires_grad_()
            m(xg).backward(dy)
            x64, w64 = x.double().requires_grad_(), w.double().requires_grad_()
            rms_ref(x64, w64, 1e-5).backward(dy.double())
            r.compare(f"grad input {shape}", xg.grad, x64.grad, GRAD_TOL)
            r.compare(f"grad weight {shape}", m.weight.grad, w64.grad, GRAD_TOL)

    r.run("gradients", grads)
    return r


# -- LayerNorm -----------------------------------------------------------------------------------


def ln_ref(x: torch.Tensor, shape: tuple[int, ...], w, b, eps: float) -> torch.Tensor:  # type: ignore[no-untyped-def]
    return F.layer_norm(x.double(), shape, None if w is None else w.double(), None if b is None else b.double(), eps)


def check_layernorm(mod) -> Report:  # type: ignore[no-untyped-def]
    cls, r = mod.LayerNorm, Report()

    def attrs() -> None:
        m = cls(6)
        p = {k: v.detach() for k, v in m.named_parameters()}
        ok = (
            list(p) == ["weight", "bias"]
            and torch.equal(p["weight"], torch.ones(6))
            and torch.equal(p["bias"], torch.zeros(6))
        )
        r.add("state: parameters weight (ones), bias (zeros)", ok, str(list(p)))
        r.add(
            "state: state_dict keys == ['weight', 'bias']",
            list(m.state_dict()) == ["weight", "bias"],
            str(list(m.state_dict())),
        )
        # Attribute names (normalized_shape, eps, elementwise_affine) are the learner's business:
        # the contract observes them through outputs.
        t = cls((4, 5))
        r.add("state: LayerNorm((4, 5)) weight shape (4, 5)", t.weight.shape == (4, 5))
        n = cls(6, elementwise_affine=False)
        r.add(
            "state: elementwise_affine=False",
            n.weight is None and n.bias is None and not list(n.state_dict()),
            str(list(n.state_dict())),
        )
        nb = cls(6, bias=False)
        r.add("state: bias=False", nb.bias is None and list(nb.state_dict()) == ["weight"], str(list(nb.state_dict())))
        r.add("state: dtype=bfloat16", cls(4, dtype=torch.bfloat16).weight.dtype == torch.bfloat16)
        r.add("state: .to(float64)", cls(4).to(torch.float64).bias.dtype == torch.float64)

    r.run("state", attrs)

    def load_torch() -> None:
        t = nn.LayerNorm(8)
        t.weight.data, t.bias.data = randn([8], 5, 0.5, 1.0), randn([8], 6, 0.5)
        m = set_state(cls(8), t.state_dict())
        x = randn((3, 8), 7, 2.0)
        r.compare(
            "state: load nn.LayerNorm state_dict (strict) + forward",
            m(x),
            ln_ref(x, (8,), t.weight, t.bias, 1e-5),
            1e-5,
        )

    r.run("state: load nn.LayerNorm state_dict (strict) + forward", load_torch)

    def fwd(label, x, shape, eps=1e-5, dtype=torch.float32, seed=100, kwargs=None, atol=None, arg=None) -> None:  # type: ignore[no-untyped-def]
        def go() -> None:
            kw = kwargs or {}
            tshape = (shape,) if isinstance(shape, int) else tuple(shape)
            m = cls(shape if arg is None else arg, eps=eps, **kw)
            if m.weight is not None:
                m.weight.data.copy_(randn(tshape, seed, 0.5, 1.0))
            if m.bias is not None:
                m.bias.data.copy_(randn(tshape, seed + 1, 0.5))
            m = m.to(dtype)
            xq = x.to(dtype)
            w = None if m.weight is None else m.weight.detach()
            b = None if m.bias is None else m.bias.detach()
            r.compare(label, m(xq), ln_ref(xq, tshape, w, b, eps), TOL[dtype], atol=atol, dtype=dtype)

        r.run(label, go)

    for i, shape in enumerate([(2, 5, 8), (3, 16), (6, 5), (5, 33), (8,)]):
        fwd(f"fp32 2·N(0,1)+0.5 {shape}", randn(shape, i, 2.0, 0.5), shape[-1], seed=50 + i)
    for d in range(1, 9):
        fwd(f"fp32 N(0,1) (3,{d})", randn((3, d), d), d)
    fwd("fp32 tuple (2,3,4,5) over [4,5] (list arg)", randn((2, 3, 4, 5), 9, 2.0, 1.0), (4, 5), arg=[4, 5])
    fwd("fp32 tuple (2,3,4) over (2,3,4)", randn((2, 3, 4), 9, 2.0, 1.0), (2, 3, 4))
    fwd("fp32 bias=False", randn((4, 10), 3, 3.0, -1.0), 10, kwargs={"bias": False})
    fwd("fp32 elementwise_affine=False", randn((4, 10), 3, 3.0, -1.0), 10, kwargs={"elementwise_affine": False})
    fwd("fp32 mean 1e3 N(0,1)+1e3 (4,64)", randn((4, 64), 11, 1.0, 1e3), 64, atol=1e-3)
    const = randn((4, 12), 12)
    const[0], const[2], const[3] = 7.0, -0.5, 0.0
    fwd("fp32 constant rows 7.0 / -0.5 and an all-zero row", const, 12)
    fwd("fp32 small-variance 1e-3·N(0,1) (4,32)", randn((4, 32), 13, 1e-3), 32)
    fwd("fp32 eps=1e-2 on 0.05·N(0,1)", randn((4, 12), 14, 0.05), 12, eps=1e-2)
    fwd("fp32 eps=1e-7 on 0.05·N(0,1)", randn((4, 12), 14, 0.05), 12, eps=1e-7)
    for dtype in (torch.bfloat16, torch.float16):
        name = "bf16" if dtype == torch.bfloat16 else "fp16"
        fwd(f"{name} 2·N(0,1)+1 (4,6,64)", randn((4, 6, 64), 20, 2.0, 1.0), 64, dtype=dtype, seed=30)
    fwd("fp16 std 300: 300·N(0,1) (3,64)", randn((3, 64), 21, 300.0), 64, dtype=torch.float16, seed=31)
    fwd("bf16 large 500·N(0,1) (3,128)", randn((3, 128), 22, 500.0), 128, dtype=torch.bfloat16, seed=32)

    def second_call() -> None:
        m = cls(16)
        m(randn((4, 16), 31))
        x2 = randn((4, 16), 32, 3.0, 1.0)
        r.compare("fp32 second call on a new input", m(x2), ln_ref(x2, (16,), m.weight, m.bias, 1e-5), 1e-5)

    r.run("fp32 second call on a new input", second_call)

    def grads() -> None:
        const = randn((3, 8), 43)
        const[1] = 2.0
        for label, x, shape in [
            ("(2,5,8) over 8", randn((2, 5, 8), 40, 1.5), (8,)),
            ("(3,4,6) over (4,6)", randn((3, 4, 6), 40, 1.5), (4, 6)),
            ("(3,8) with a constant row", const, (8,)),
        ]:
            w, b, dy = randn(shape, 41, 0.5, 1.0), randn(shape, 42, 0.5), randn(x.shape, 44)
            m = cls(list(shape) if len(shape) > 1 else shape[0])
            m.weight.data.copy_(w)
            m.bias.data.copy_(b)
            xg = x.clone().requires_grad_()
            m(xg).backward(dy)
            x64, w64, b64 = (t.double().requires_grad_() for t in (x, w, b))
            ln_ref(x64, shape, w64, b64, 1e-5).backward(dy.double())
            r.compare(f"grad input {label}", xg.grad, x64.grad, GRAD_TOL)
            r.compare(f"grad weight {label}", m.weight.grad, w64.grad, GRAD_TOL)
            r.compare(f"grad bias {label}", m.bias.grad, b64.grad, GRAD_TOL)

    r.run("gradients", grads)
    return r


# -- BatchNorm1d ---------------------------------------------------------------------------------

C = 3


def bn_affine(seed: int) -> dict[str, torch.Tensor]:
    return {"weight": randn([C], seed, 0.5, 1.0), "bias": randn([C], seed + 1, 0.5)}


def torch_bn(state: dict[str, torch.Tensor] | None = None, **kwargs) -> nn.BatchNorm1d:  # type: ignore[no-untyped-def]
    t = nn.BatchNorm1d(C, **kwargs)
    if state:
        t.load_state_dict(state, strict=False)
    return t.double()


def learner_bn(cls, state: dict[str, torch.Tensor] | None = None, **kwargs):  # type: ignore[no-untyped-def]
    m = cls(C, **kwargs)
    if state:
        with torch.no_grad():
            for k, v in state.items():
                getattr(m, k).copy_(v)
    return m


def check_batchnorm(mod) -> Report:  # type: ignore[no-untyped-def]
    cls, r = mod.BatchNorm1d, Report()
    full = ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]

    def state() -> None:
        m = cls(C)
        p = {k: v.detach() for k, v in m.named_parameters()}
        ok = (
            list(p) == ["weight", "bias"]
            and torch.equal(p["weight"], torch.ones(C))
            and torch.equal(p["bias"], torch.zeros(C))
        )
        r.add("state: parameters weight (ones), bias (zeros)", ok, str(list(p)))
        r.add("state: state_dict keys", list(m.state_dict()) == full, str(list(m.state_dict())))
        bufs = dict(m.named_buffers())
        r.add(
            "state: buffers running_mean, running_var, num_batches_tracked",
            sorted(bufs) == sorted(full[2:]),
            str(sorted(bufs)),
        )
        for name, init in (("running_mean", torch.zeros(C)), ("running_var", torch.ones(C))):
            b = bufs.get(name)
            r.add(
                f"state: {name} float32 buffer, no grad",
                b is not None and b.dtype == torch.float32 and torch.equal(b, init) and not b.requires_grad,
            )
        nbt = bufs.get("num_batches_tracked")
        r.add(
            "state: num_batches_tracked 0-dim int64 == 0",
            nbt is not None and nbt.dtype == torch.int64 and nbt.dim() == 0 and int(nbt) == 0,
        )
        a = cls(C, affine=False)
        r.add(
            "state: affine=False",
            a.weight is None and a.bias is None and list(a.state_dict()) == full[2:],
            str(list(a.state_dict())),
        )
        t = cls(C, track_running_stats=False)
        r.add(
            "state: track_running_stats=False",
            list(t.state_dict()) == ["weight", "bias"] and all(getattr(t, n, 0) is None for n in full[2:]),
            str(list(t.state_dict())),
        )
        dbl = cls(C).double()
        bufs = dict(dbl.named_buffers())
        r.add(
            "state: .double() keeps num_batches_tracked int64",
            bufs.get("running_mean") is not None
            and bufs["running_mean"].dtype == torch.float64
            and bufs.get("num_batches_tracked") is not None
            and bufs["num_batches_tracked"].dtype == torch.int64,
        )

    r.run("state", state)

    def load_torch() -> None:
        t = nn.BatchNorm1d(C)
        t.load_state_dict(
            {
                **bn_affine(5),
                "running_mean": torch.zeros(C),
                "running_var": torch.ones(C),
                "num_batches_tracked": torch.tensor(0),
            }
        )
        for i in range(3):
            t(randn((16, C), 60 + i, 2.0, 3.0))
        t.eval()
        m = cls(C)
        m.load_state_dict(t.state_dict(), strict=True)
        m.eval()
        x = randn((5, C), 70, 2.0, 3.0)
        r.compare("state: load trained nn.BatchNorm1d state_dict (strict) + eval", m(x), t.double()(x.double()), 1e-5)

    r.run("state: load trained nn.BatchNorm1d state_dict (strict) + eval", load_torch)

    def train_fwd(label: str, x: torch.Tensor, seed: int, dtype=torch.float32) -> None:  # type: ignore[no-untyped-def]
        def go() -> None:
            st = bn_affine(seed)
            m = learner_bn(cls, st).to(dtype).train()
            st_q = {k: v.to(dtype) for k, v in st.items()}
            xq = x.to(dtype)
            exp = torch_bn({k: v.double() for k, v in st_q.items()}).train()(xq.double())
            r.compare(label, m(xq), exp, TOL[dtype], dtype=dtype)

        r.run(label, go)

    for i, shape in enumerate([(8, C), (16, C), (2, C), (6, C, 5), (4, C, 7), (2, C, 2)]):
        train_fwd(f"train fp32 2·N(0,1)+3 {shape}", randn(shape, i, 2.0, 3.0), seed=50 + i)
    const = randn((8, C, 4), 12)
    const[:, 1, :] = 5.0
    train_fwd("train fp32 channel 1 constant (8,3,4)", const, seed=13)
    train_fwd("train fp32 small-variance 1e-3·N(0,1) (16,3)", randn((16, C), 14, 1e-3), seed=15)
    for dtype in (torch.bfloat16, torch.float16):
        for shape in [(16, C), (8, C, 6)]:
            name = "bf16" if dtype == torch.bfloat16 else "fp16"
            train_fwd(f"train {name} N(0,1)+0.5 {shape}", randn(shape, 150, 1.0, 0.5), seed=151, dtype=dtype)

    def running(label: str, shape, steps: int, **kwargs) -> None:  # type: ignore[no-untyped-def]
        def go() -> None:
            m, t = cls(C, **kwargs).train(), torch_bn(**kwargs).train()
            for i in range(steps):
                x = randn(shape, 80 + i, 2.0, 3.0)
                m(x)
                t(x.double())
            bufs = dict(m.named_buffers())
            for name in ("running_mean", "running_var"):
                got = bufs.get(name, getattr(m, name, None))
                r.compare(f"{label}: {name}", got, getattr(t, name), 1e-5)
            nbt = bufs.get("num_batches_tracked")
            r.add(f"{label}: num_batches_tracked == {steps}", nbt is not None and int(nbt) == steps, repr(nbt))

        r.run(label, go)

    running("running stats 4 steps (8,3)", (8, C), 4)
    running("running stats 4 steps (6,3,5)", (6, C, 5), 4)
    for momentum in (None, 0.0, 0.1, 0.5):
        running(f"running stats momentum={momentum} (10,3,4)", (10, C, 4), 3, momentum=momentum)

    def eval_after_training() -> None:
        st = bn_affine(121)
        m, t = learner_bn(cls, st).train(), torch_bn({k: v.double() for k, v in st.items()}).train()
        for i in range(3):
            x = randn((8, C), 110 + i, 2.0, 3.0)
            m(x)
            t(x.double())
        m.eval()
        t.eval()
        before = {k: v.clone() for k, v in m.named_buffers()}
        xe = randn((8, C), 120, 0.5, -1.0)
        r.compare("eval after 3 training steps", m(xe), t(xe.double()), 1e-5)
        after = dict(m.named_buffers())
        r.add("eval updates nothing", all(torch.equal(before[k], after[k]) for k in before))

    r.run("eval after 3 training steps", eval_after_training)

    def no_grad_training() -> None:
        m, t = cls(C).train(), torch_bn().train()
        with torch.no_grad():
            for i in range(2):
                x = randn((8, C), 100 + i, 2.0, 3.0)
                m(x)
                t(x.double())
        r.compare("no_grad training still updates running_mean", m.running_mean, t.running_mean, 1e-5)

    r.run("no_grad training still updates running_mean", no_grad_training)

    def no_tracking_eval() -> None:
        x = randn((8, C), 130, 2.0, 3.0)
        m = cls(C, track_running_stats=False).eval()
        r.compare(
            "track_running_stats=False eval uses batch stats",
            m(x),
            torch_bn(track_running_stats=False).eval()(x.double()),
            1e-5,
        )

    r.run("track_running_stats=False eval uses batch stats", no_tracking_eval)

    def one_value() -> None:
        try:
            cls(C).train()(randn((1, C), 140))
        except ValueError:
            r.add("N=1 in training raises ValueError", True)
        except Exception as exc:  # noqa: BLE001
            r.add("N=1 in training raises ValueError", False, f"raised {type(exc).__name__}")
        else:
            r.add("N=1 in training raises ValueError", False, "returned a tensor")

    one_value()

    def grads() -> None:
        for shape in [(8, C), (6, C, 5)]:
            st = bn_affine(160)
            x, dy = randn(shape, 161, 2.0, 3.0), randn(shape, 162)
            m = learner_bn(cls, st).train()
            xg = x.clone().requires_grad_()
            m(xg).backward(dy)
            t = torch_bn({k: v.double() for k, v in st.items()}).train()
            x64 = x.double().requires_grad_()
            t(x64).backward(dy.double())
            r.compare(f"grad input {shape}", xg.grad, x64.grad, GRAD_TOL)
            r.compare(f"grad weight {shape}", m.weight.grad, t.weight.grad, GRAD_TOL)
            r.compare(f"grad bias {shape}", m.bias.grad, t.bias.grad, GRAD_TOL)

    r.run("gradients", grads)

    def graph() -> None:
        m = cls(C).train()
        x = randn((8, C), 170, 2.0, 3.0).requires_grad_()
        m(x).pow(2).sum().backward()
        leaks = [k for k, v in m.named_buffers() if v.requires_grad or v.grad_fn is not None]
        r.add("buffers stay out of the graph (input requires grad)", not leaks, f"requires grad: {leaks}")
        m.eval()
        x2 = randn((8, C), 171, 2.0, 3.0).requires_grad_()
        m(x2).sum().backward()
        r.add("eval backward after a training backward", True)

    r.run("eval backward after a training backward", graph)
    return r


# -- Pre-Norm ------------------------------------------------------------------------------------

D, H, FF = 16, 4, 32


def reference_prenorm():  # type: ignore[no-untyped-def]
    return load(ROOT / "solutions" / "prenorm.py", "realworld_reference_prenorm")


def random_state(module: nn.Module, seed: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    out = {}
    for name, value in module.state_dict().items():
        noise = torch.randn(value.shape, generator=g)
        out[name] = (
            1.0 + 0.5 * noise if name.endswith(("norm1.weight", "norm2.weight", "final_norm.weight")) else 0.3 * noise
        )
    return out


def check_prenorm(mod) -> Report:  # type: ignore[no-untyped-def]
    ref, r = reference_prenorm(), Report()

    def structure() -> None:
        for norm, kind in (("rmsnorm", "RMSNorm"), ("layernorm", "LayerNorm")):
            b = mod.PreNormBlock(D, H, FF, norm=norm)
            kids = dict(b.named_children())
            r.add(
                f"block({norm}): norm1/attn/norm2/ffn present",
                all(k in kids for k in ("norm1", "attn", "norm2", "ffn")),
                str(list(kids)),
            )
            r.add(
                f"block({norm}): norms are {kind}",
                all(kind in type(kids.get(k)).__name__ for k in ("norm1", "norm2")),
                str([type(kids.get(k)).__name__ for k in ("norm1", "norm2")]),
            )
            r.add(
                f"block({norm}): state_dict keys",
                list(b.state_dict()) == list(ref.PreNormBlock(D, H, FF, norm=norm).state_dict()),
            )
        s = mod.PreNormTransformer(3, D, H, FF)
        kids = dict(s.named_children())
        extra = [k for k in kids if k not in ("blocks", "final_norm")]
        r.add(
            "stack: blocks (ModuleList) and final_norm",
            isinstance(kids.get("blocks"), nn.ModuleList) and "final_norm" in kids,
            f"children {list(kids)}; extra harmless: {extra}",
        )
        r.add("stack: state_dict keys", list(s.state_dict()) == list(ref.PreNormTransformer(3, D, H, FF).state_dict()))

    r.run("structure", structure)

    def forward(label, cls_name, args, kwargs, x, seed, dtype=torch.float32) -> None:  # type: ignore[no-untyped-def]
        def go() -> None:
            reference = getattr(ref, cls_name)(*args, **kwargs)
            state = random_state(reference, seed)
            reference.load_state_dict({k: v.to(dtype) for k, v in state.items()})
            exp64 = reference.double()
            with torch.no_grad():
                exp = exp64(x.to(dtype).double())
                learner = getattr(mod, cls_name)(*args, **kwargs)
                learner.load_state_dict(state, strict=True)
                learner = learner.to(dtype)
                got = learner(x.to(dtype))
                tol = atol = BLOCK_TOL[dtype]
                if dtype != torch.float32:
                    low = getattr(ref, cls_name)(*args, **kwargs)
                    low.load_state_dict(state)
                    own = (low.to(dtype)(x.to(dtype)).double() - exp).abs().max().item()
                    atol = max(tol, 2 * own)
            r.compare(label, got, exp, tol, atol=atol, dtype=dtype)

        r.run(label, go)

    for norm in ("rmsnorm", "layernorm"):
        for shape in [(2, 5), (1, 9), (3, 1)]:
            forward(
                f"block {norm} fp32 {shape}",
                "PreNormBlock",
                [D, H, FF],
                {"norm": norm},
                randn((*shape, D), 1, 1.5, 0.3),
                seed=len(norm) + shape[1],
            )
        forward(
            f"stack {norm} fp32 (2,6)",
            "PreNormTransformer",
            [3, D, H, FF],
            {"norm": norm},
            randn((2, 6, D), 2, 1.5),
            seed=7,
        )
        small = randn((2, 4, D), 3, 0.02)
        forward(
            f"block {norm} eps=1e-2 small 0.02·N(0,1)",
            "PreNormBlock",
            [D, H, FF],
            {"norm": norm, "eps": 1e-2},
            small,
            seed=11,
        )
        forward(
            f"stack {norm} eps=1e-2 small 0.02·N(0,1)",
            "PreNormTransformer",
            [3, D, H, FF],
            {"norm": norm, "eps": 1e-2},
            small,
            seed=12,
        )
        for dtype in (torch.bfloat16, torch.float16):
            forward(
                f"block {norm} {dtype} N(0,1)",
                "PreNormBlock",
                [D, H, FF],
                {"norm": norm},
                randn((2, 5, D), 4),
                13,
                dtype,
            )

    def grads() -> None:
        for norm in ("rmsnorm", "layernorm"):
            reference = ref.PreNormTransformer(2, D, H, FF, norm=norm)
            state = random_state(reference, 17)
            reference.load_state_dict(state)
            reference = reference.double()
            learner = mod.PreNormTransformer(2, D, H, FF, norm=norm)
            learner.load_state_dict(state, strict=True)
            x, dy = randn((2, 5, D), 5), randn((2, 5, D), 6)
            learner(x).backward(dy)
            reference(x.double()).backward(dy.double())
            rp = dict(reference.named_parameters())
            errs = [
                max_err(p.grad, rp[n].grad, GRAD_TOL) if p.grad is not None else (False, math.inf)
                for n, p in learner.named_parameters()
            ]
            worst = max(errs, key=lambda e: e[1])
            r.add(f"gradients of every parameter ({norm})", worst[0], f"max abs err {worst[1]:.3g}")

    r.run("gradients", grads)
    return r


# -- named mistakes: the fixture's output must match the reference run with that mistake ---------


def diag_rms_one_plus_weight(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    m, w, x = mod.RMSNorm(16), randn([16], 1, 0.5, 1.0), randn((4, 16), 2)
    m.weight.data.copy_(w)
    suspect = x.double() * torch.rsqrt(x.double().pow(2).mean(-1, keepdim=True) + 1e-5) * (1 + w.double())
    ok, err = max_err(m(x), suspect, 1e-5)
    return ok and torch.equal(
        mod.RMSNorm(4).weight.detach(), torch.zeros(4)
    ), f"vs x̂·(1+w): {err:.2g}; weight init zeros"


def diag_rms_no_eps(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    m, w, x = mod.RMSNorm(32), randn([32], 1, 0.5, 1.0), randn((4, 32), 11, 1e-3)
    m.weight.data.copy_(w)
    suspect = x.double() * torch.rsqrt(x.double().pow(2).mean(-1, keepdim=True)) * w.double()
    ok, err = max_err(m(x), suspect, 1e-5)
    reference_err = max_err(m(x), rms_ref(x, w, 1e-5), 1e-5)[1]
    return ok, f"small-variance: vs eps-free suspect {err:.2g}, vs reference {reference_err:.2g}"


def diag_rms_missing_keepdim(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    m, x = mod.RMSNorm(4), randn((4, 4), 3)
    suspect = x.double() * torch.rsqrt(x.double().pow(2).mean(-1) + 1e-5)  # (4,) broadcast over the last dim
    ok, err = max_err(m(x), suspect, 1e-5)
    try:
        mod.RMSNorm(16)(randn((3, 16), 4))
        raised = "no error"
    except RuntimeError:
        raised = "RuntimeError"
    return ok and raised == "RuntimeError", f"(4,4) vs no-keepdim suspect {err:.2g}; (3,16): {raised}"


def diag_stateful(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    m = mod.RMSNorm(16)
    x1, x2 = randn((4, 16), 1), randn((4, 16), 2, 3.0)
    first = max_err(m(x1), rms_ref(x1, m.weight, 1e-5), 1e-5)
    second = max_err(m(x2), rms_ref(x2, m.weight, 1e-5), 1e-5)
    fresh = max_err(mod.RMSNorm(16)(x2), rms_ref(x2, torch.ones(16), 1e-5), 1e-5)
    return first[0] and fresh[0] and not second[
        0
    ], f"1st call {first[1]:.2g}, 2nd call {second[1]:.2g}, fresh module on 2nd input {fresh[1]:.2g}"


def diag_ln_unbiased(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    x = randn((3, 16), 1, 2.0, 0.5)
    m = mod.LayerNorm(16)
    w, b = randn([16], 2, 0.5, 1.0), randn([16], 3, 0.5)
    m.weight.data.copy_(w)
    m.bias.data.copy_(b)
    x64 = x.double()
    suspect = (x64 - x64.mean(-1, keepdim=True)) / torch.sqrt(
        x64.var(-1, keepdim=True) + 1e-5
    ) * w.double() + b.double()
    ok, err = max_err(m(x), suspect, 1e-5)
    return (
        ok,
        f"2·N(0,1)+0.5 (3,16): vs unbiased suspect {err:.2g}, vs reference {max_err(m(x), ln_ref(x, (16,), w, b, 1e-5), 1e-5)[1]:.2g}",
    )


def diag_ln_one_pass(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    x = randn((4, 64), 11, 1.0, 1e3)
    m = mod.LayerNorm(64)
    x32 = x.float()
    mean = x32.mean(-1, keepdim=True)
    suspect = (x32 - mean) / torch.sqrt(x32.pow(2).mean(-1, keepdim=True) - mean.pow(2) + 1e-5)
    ok, err = max_err(m(x), suspect, 1e-5, atol=1e-3)
    return (
        ok,
        f"mean 1e3: vs fp32 one-pass suspect {err:.2g}, vs reference {max_err(m(x), ln_ref(x, (64,), None, None, 1e-5), 1e-5, 1e-3)[1]:.2g}",
    )


def diag_ln_no_upcast(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    x = randn((3, 64), 21, 300.0).half()
    m = mod.LayerNorm(64)
    b = randn([64], 5, 0.5)
    m.bias.data.copy_(b)
    m = m.half()
    out = m(x)
    collapsed = max_err(out, b.half().expand(3, 64), 2e-3)
    return (
        collapsed[0],
        f"fp16 300·N(0,1): output == bias (max diff {collapsed[1]:.2g}); vs reference {max_err(out, ln_ref(x, (64,), m.weight, m.bias, 1e-5), 2e-3)[1]:.2g}",
    )


def diag_bn_unbiased_output(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    x, st = randn((8, C), 0, 2.0, 3.0), bn_affine(50)
    m = learner_bn(mod.BatchNorm1d, st).train()
    x64 = x.double()
    suspect = (x64 - x64.mean(0)) / torch.sqrt(x64.var(0) + 1e-5) * st["weight"].double() + st["bias"].double()
    ok, err = max_err(m(x), suspect, 1e-5)
    return ok, f"train (8,3): vs unbiased-output suspect {err:.2g}"


def _keras_running(xs, momentum):  # type: ignore[no-untyped-def]
    mean, var = torch.zeros(C, dtype=torch.float64), torch.ones(C, dtype=torch.float64)
    for x in xs:
        f = 1 - momentum
        mean = (1 - f) * mean + f * x.double().mean((0, 2))
        var = (1 - f) * var + f * x.double().var((0, 2))
    return mean, var


def diag_bn_keras(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    xs = [randn((10, C, 4), 80 + i, 2.0, 3.0) for i in range(3)]
    m = mod.BatchNorm1d(C, momentum=0.1).train()
    for x in xs:
        m(x)
    mean, var = _keras_running(xs, 0.1)
    ok1, e1 = max_err(m.running_mean, mean, 1e-5)
    ok2, e2 = max_err(m.running_var, var, 1e-5)
    return ok1 and ok2, f"momentum=0.1, 3 steps: vs Keras-convention suspect {max(e1, e2):.2g}"


def diag_bn_eval_batch(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    st = bn_affine(121)
    m = learner_bn(mod.BatchNorm1d, st).train()
    for i in range(3):
        m(randn((8, C), 110 + i, 2.0, 3.0))
    m.eval()
    xe = randn((8, C), 120, 0.5, -1.0)
    batch = torch_bn({k: v.double() for k, v in st.items()}).train()(xe.double())
    ok, err = max_err(m(xe), batch, 1e-5)
    return ok, f"eval forward vs batch-statistics suspect {err:.2g}"


def diag_bn_graph(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    m = mod.BatchNorm1d(C).train()
    x = randn((8, C), 170, 2.0, 3.0).requires_grad_()
    m(x).sum().backward()
    leaks = [k for k, v in m.named_buffers() if v.requires_grad]
    m.eval()
    try:
        m(randn((8, C), 171).requires_grad_()).sum().backward()
        second = "no error"
    except RuntimeError as exc:
        second = f"RuntimeError ({str(exc)[:60]}...)"
    return bool(leaks), f"buffers requiring grad: {leaks}; eval backward: {second}"


def _pn_modules(mod, cls_name, args, kwargs, seed):  # type: ignore[no-untyped-def]
    ref = reference_prenorm()
    reference = getattr(ref, cls_name)(*args, **kwargs)
    state = random_state(reference, seed)
    reference.load_state_dict(state)
    learner = getattr(mod, cls_name)(*args, **kwargs)
    learner.load_state_dict(state, strict=True)
    return reference.double(), learner


def diag_post_norm(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    ref, m = _pn_modules(mod, "PreNormBlock", [D, H, FF], {"norm": "layernorm"}, 9)
    x = randn((2, 5, D), 1, 1.5, 0.3)
    with torch.no_grad():
        h = ref.norm1(x.double() + ref.attn(x.double()))
        suspect = ref.norm2(h + ref.ffn(h))
        ok, err = max_err(m(x), suspect, 1e-4)
    return ok, f"block vs Post-Norm suspect {err:.2g}"


def diag_no_final(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    ref, m = _pn_modules(mod, "PreNormTransformer", [3, D, H, FF], {"norm": "rmsnorm"}, 7)
    x = randn((2, 6, D), 2, 1.5)
    with torch.no_grad():
        h = x.double()
        for block in ref.blocks:
            h = block(h)
        ok, err = max_err(m(x), h, 1e-4)
    return ok, f"stack vs no-final-norm suspect {err:.2g}"


def _default_eps(norm: str) -> float:
    return torch.finfo(torch.float32).eps if norm == "rmsnorm" else 1e-5


def diag_block_eps(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    details, good = [], True
    for norm in ("rmsnorm", "layernorm"):
        ref, m = _pn_modules(mod, "PreNormBlock", [D, H, FF], {"norm": norm, "eps": 1e-2}, 11)
        ref.norm1.eps = ref.norm2.eps = _default_eps(norm)
        x = randn((2, 4, D), 3, 0.02)
        with torch.no_grad():
            ok, err = max_err(m(x), ref(x.double()), 1e-4)
        good &= ok
        details.append(f"{norm}: vs block-with-default-eps suspect {err:.2g}")
    return good, "; ".join(details)


def diag_stack_eps(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    details, good = [], True
    for norm in ("rmsnorm", "layernorm"):
        ref, m = _pn_modules(mod, "PreNormTransformer", [3, D, H, FF], {"norm": norm, "eps": 1e-2}, 12)
        for block in ref.blocks:
            block.norm1.eps = block.norm2.eps = 1e-5  # the block's own default
        ref.final_norm.eps = _default_eps(norm)  # the norm class's own default
        x = randn((2, 4, D), 3, 0.02)
        with torch.no_grad():
            ok, err = max_err(m(x), ref(x.double()), 1e-4)
        good &= ok
        details.append(f"{norm}: vs stack-without-eps suspect {err:.2g}")
    return good, "; ".join(details)


def diag_eps_not_passed(mod) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    """The block's norms or the stack's norms (final_norm included) miss the eps they were given."""
    block = diag_block_eps(mod)
    return block if block[0] else diag_stack_eps(mod)


DIAGNOSES: dict[str, Callable] = {
    "rms-one-plus-weight": diag_rms_one_plus_weight,
    "rms-no-eps": diag_rms_no_eps,
    "rms-missing-keepdim": diag_rms_missing_keepdim,
    "stateful-forward": diag_stateful,
    "ln-unbiased-variance": diag_ln_unbiased,
    "ln-one-pass-variance": diag_ln_one_pass,
    "ln-no-fp32-upcast": diag_ln_no_upcast,
    "bn-unbiased-output": diag_bn_unbiased_output,
    "bn-keras-momentum": diag_bn_keras,
    "bn-eval-uses-batch-stats": diag_bn_eval_batch,
    "bn-running-stats-in-graph": diag_bn_graph,
    "pn-post-norm": diag_post_norm,
    "pn-no-final-norm": diag_no_final,
    "pn-eps-not-passed": diag_eps_not_passed,
}
CHECKS = {
    "rmsnorm": check_rmsnorm,
    "layernorm": check_layernorm,
    "batchnorm": check_batchnorm,
    "prenorm": check_prenorm,
}


def header(path: Path) -> tuple[bool, str | None, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    verdict = lines[0].removeprefix("# expect: ").split()
    diagnosis = next((w.removeprefix("diagnosis=") for w in verdict[1:] if w.startswith("diagnosis=")), None)
    return verdict[0] == "pass", diagnosis, lines[1].removeprefix("# style: ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="fixture stems to check (default: all)")
    parser.add_argument("--verbose", action="store_true", help="print every check, not only the misses")
    args = parser.parse_args()
    torch.manual_seed(0)
    bad = 0
    for kata in KATAS:
        for path in sorted((ROOT / "katas" / kata / "fixtures" / "realworld").glob("*.py")):
            if args.names and path.stem not in args.names:
                continue
            expect_pass, diagnosis, _ = header(path)
            try:
                report = CHECKS[kata](load(path))
            except Exception:  # noqa: BLE001
                print(f"{kata}/{path.stem}: could not be checked\n{traceback.format_exc()}")
                bad += 1
                continue
            passed = not report.failed
            line = f"{kata}/{path.stem}: expected {'pass' if expect_pass else 'fail'}, measured {'pass' if passed else 'fail'}"
            good = passed == expect_pass
            if diagnosis:
                try:
                    matched, evidence = DIAGNOSES[diagnosis](load(path))
                except Exception as exc:  # noqa: BLE001
                    matched, evidence = False, f"raised {type(exc).__name__}: {exc}"
                line += f"; {diagnosis}: {'matched' if matched else 'NOT matched'} ({evidence})"
                good &= matched
            if passed:
                share = [c for c in report.checks if "of the allowance" in c[2]]
                worst = max(share, key=lambda c: float(c[2].split("; ")[-1].split("%")[0]))
                line += f"; closest to tolerance: {worst[0]}: {worst[2]}"
            print(("ok   " if good else "BAD  ") + line)
            for name, ok, detail in report.checks if args.verbose else report.failed[:8]:
                print(f"       {'ok' if ok else 'MISS'} {name}: {detail}")
            if len(report.failed) > 8 and not args.verbose:
                print(f"       ... and {len(report.failed) - 8} more misses")
            bad += not good
    print(f"{'all expectations confirmed' if not bad else f'{bad} expectation(s) NOT confirmed'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
