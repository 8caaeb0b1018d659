"""Kata: RMSNorm's backward as Triton kernels. Run `normkata grade` to check it.

Without a GPU it is graded under Triton's interpreter (TRITON_INTERPRET=1): the same code runs
compiled on a GPU.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_bwd_kernel(
    dy_ptr,
    x_ptr,
    w_ptr,
    rstd_ptr,
    dx_ptr,
    dw_ptr,
    dy_row_stride,
    x_row_stride,
    dx_row_stride,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
):
    """One program per row: dx for the row, and the row's share of dweight added to dw_ptr."""
    row = tl.program_id(0)  # noqa: F841


def rmsnorm_backward(
    dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, rstd: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """dy, x: (rows, d), rows possibly strided; weight: (d,); rstd: (rows,) float32 from the forward pass.

    Returns dx (like x) and dweight (like weight)."""
    raise NotImplementedError("allocate dx and a float32 dweight, launch over a grid of rows, return (dx, dweight)")
