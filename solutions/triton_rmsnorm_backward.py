"""Reference Triton RMSNorm backward: dx per row from the saved rstd, dweight summed across programs."""

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
    row = tl.program_id(0)  # one program per row
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dy = tl.load(dy_ptr + row * dy_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.load(rstd_ptr + row)  # saved by the forward pass, float32
    g = dy * w
    # dx = rstd·g − x·rstd³·mean(x·g): the direct path and the path through rstd
    mean_xg = tl.sum(x * g, axis=0) / n_cols
    dx = rstd * g - x * (rstd * rstd * rstd) * mean_xg
    tl.store(dx_ptr + row * dx_row_stride + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    # dweight = Σ over rows of dy·x·rstd: every program adds its row, atomically, in float32
    tl.atomic_add(dw_ptr + cols, dy * x * rstd, mask=mask)


def rmsnorm_backward(
    dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, rstd: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    n_rows, n_cols = x.shape  # (rows, d); rows may be strided, each row contiguous
    dx = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    dweight = torch.zeros(n_cols, dtype=torch.float32, device=x.device)  # accumulated in float32
    row_strides = dy.stride(0), x.stride(0), dx.stride(0)
    block = triton.next_power_of_2(n_cols)  # one block covers the row
    _rmsnorm_bwd_kernel[(n_rows,)](dy, x, weight, rstd, dx, dweight, *row_strides, n_cols, BLOCK_SIZE=block)
    return dx, dweight.to(weight.dtype)
