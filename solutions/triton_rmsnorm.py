"""Reference Triton RMSNorm forward: one program per row, y = x · rstd · weight, rstd saved per row."""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_fwd_kernel(
    x_ptr, w_ptr, y_ptr, rstd_ptr, x_row_stride, y_row_stride, n_cols, eps, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(0)  # one program per row
    cols = tl.arange(0, BLOCK_SIZE)  # BLOCK_SIZE >= n_cols, a power of two
    mask = cols < n_cols  # lanes past the row's end do nothing
    # other=0.0: masked-off lanes add nothing to the sum of squares. Accumulate in float32.
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)  # mean over the row's n_cols, not BLOCK_SIZE
    tl.store(rstd_ptr + row, rstd)
    y = x * rstd * w
    tl.store(y_ptr + row * y_row_stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)  # back to x's dtype


def rmsnorm_forward(x: torch.Tensor, weight: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    n_rows, n_cols = x.shape  # (rows, d); rows may be strided, each row contiguous
    y = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    _rmsnorm_fwd_kernel[(n_rows,)](
        x, weight, y, rstd, x.stride(0), y.stride(0), n_cols, eps, BLOCK_SIZE=triton.next_power_of_2(n_cols)
    )
    return y, rstd
