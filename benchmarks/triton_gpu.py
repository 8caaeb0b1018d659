"""The Triton RMSNorm kata's files compiled on a GPU: correctness of each file and its speed.

Run `python benchmarks/triton_gpu.py [FILE ...]` on a machine with CUDA and triton (no other
normkata dependency: it imports only normkata.grading.worker.kernels and the files). For each file
(default: the reference and the kata's correct fixtures) it runs `rmsnorm_forward` compiled
(no interpreter) on the suite's kinds of input (widths that are and are not powers of two,
d = 1, strided rows with NaN in the gaps, bf16, fp16 near 300), compares y and rstd with a
float64 reference at the suite's tolerances, then times it on (16384, 8192) fp16 against a memory
copy of the same bytes and torch eager, as the kata's speed case reports it. docs/gpu.md
records a run.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from normkata.grading.messages import TIMED_SHAPE  # noqa: E402
from normkata.grading.worker.kernels.launcher import _timings  # noqa: E402

TOL = {torch.float32: 1e-5, torch.bfloat16: 1.6e-2, torch.float16: 2e-3}
CASES = [
    ((4, 8), torch.float32, 0, 1.0),
    ((3, 300), torch.float32, 0, 1.0),
    ((5, 1), torch.float32, 0, 1.0),
    ((6, 7), torch.float32, 0, 1.0),
    ((4, 100), torch.float32, 24, 1.0),
    ((37, 12), torch.float32, 0, 1.0),
    ((4, 96), torch.bfloat16, 0, 1.0),
    ((4, 96), torch.float16, 0, 1.0),
    ((3, 48), torch.float16, 0, 300.0),
    ((64, 4096), torch.float16, 0, 1.0),
    ((8, 5000), torch.bfloat16, 8, 1.0),
]


def load(path: Path) -> object:
    spec = importlib.util.spec_from_file_location(f"learner_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(fn: object, shape: tuple[int, int], dtype: torch.dtype, pad: int, scale: float) -> str:
    n, d = shape
    g = torch.Generator().manual_seed(n * 1000 + d)
    x = (torch.randn(shape, generator=g) * scale).to(dtype)
    w = (torch.randn(d, generator=g) * 0.5 + 1).to(dtype)
    base = torch.full((n, d + pad), math.nan, dtype=dtype)
    base[:, :d] = x
    xs = base.cuda()[:, :d]
    y, rstd = fn(xs, w.cuda(), 1e-5)  # type: ignore[operator]
    x64 = x.double()
    r64 = torch.rsqrt(x64.pow(2).mean(-1) + 1e-5)
    want = x64 * r64[:, None] * w.double()
    tol = TOL[dtype]
    ok_y = y.dtype == dtype and torch.allclose(y.double().cpu(), want, rtol=tol, atol=tol)
    ok_r = rstd.dtype == torch.float32 and torch.allclose(
        rstd.double().cpu(), r64, rtol=max(tol, 1e-5), atol=max(tol, 1e-5)
    )
    err = (y.double().cpu() - want).abs().max().item()
    return f"{'ok ' if ok_y and ok_r else 'BAD'} {shape} {str(dtype)[6:]} pad={pad} scale={scale:g} max|err|={err:.2e}"


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    if not torch.cuda.is_available():
        print("needs a CUDA GPU (and triton): the kernels run compiled here", file=sys.stderr)
        return 2
    import triton

    files = [Path(a) for a in argv] or [
        ROOT / "solutions" / "triton_rmsnorm.py",
        *sorted((ROOT / "katas/triton_rmsnorm/fixtures").glob("correct_*.py")),
    ]
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}")
    failed = 0
    for path in files:
        module = load(path)
        fn = module.rmsnorm_forward  # type: ignore[attr-defined]
        print(f"== {path.name}")
        for shape, dtype, pad, scale in CASES:
            line = check(fn, shape, dtype, pad, scale)
            failed += line.startswith("BAD")
            print("  " + line)
        x = torch.ones(1, 8, dtype=torch.float16, device="cuda")
        _, kernel, copy, eager, _ = _timings(fn, [x], [1e-5]).split("|")
        k, c, e = float(kernel), float(copy), float(eager)
        moved = 2 * TIMED_SHAPE[0] * TIMED_SHAPE[1] * 2  # read x, write y, fp16
        print(
            f"  speed {TIMED_SHAPE} fp16: kernel {k:.4f} ms, copy {c:.4f} ms, eager {e:.4f} ms: "
            f"{100 * c / k:.0f}% of the copy's bandwidth ({moved / (k * 1e-3) / 1e9:.0f} GB/s)"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
