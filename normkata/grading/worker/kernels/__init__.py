"""Kernel katas in the worker: run a learner's Triton launcher and watch what its kernels do.

Runs in the untrusted worker, next to the learner's code (as calls.py does); the runner draws
every conclusion from the facts sent back (normkata.grading.kernel_checks). One module per job:

- `guard`: the bounds guard on Triton's interpreter (every load, store and atomic checked,
  the bytes each kernel wrote recorded, NaN in masked-off lanes without `other=`), float
  scalars as float32 as on a GPU, bf16 arithmetic, and its self-check;
- `libdevice`: `triton.language.extra.libdevice` computed under the interpreter;
- `tuning`: `@triton.autotune` graded under every config it lists;
- `watch`: one launcher call's bookkeeping, and the sentinel margins around what it allocates;
- `launcher`: running the launcher once per config and building the reply.

The findings cross the pipe as the contract's dataclasses (`StepReply.out_of_bounds`,
`nan_filled`, `guard`, `timing`), checked on receipt by the wire like every reply, beside the
launches, the written flags and the margins. Like every check in the worker, a
submission written to hide from it can; it cannot make wrong numbers right, and the margins
and the written flags are judged by the runner, not here.
"""

from __future__ import annotations

from normkata.grading.worker.kernels.errors import TritonUnsupported
from normkata.grading.worker.kernels.guard import describe
from normkata.grading.worker.kernels.launcher import (
    install_guard,
    interpreting,
    prepare_environment,
    run_launcher,
    run_program,
)
from normkata.grading.worker.kernels.watch import MARGIN, MAX_FINDINGS

__all__ = [
    "MARGIN",
    "MAX_FINDINGS",
    "TritonUnsupported",
    "describe",
    "install_guard",
    "interpreting",
    "prepare_environment",
    "run_launcher",
    "run_program",
]
