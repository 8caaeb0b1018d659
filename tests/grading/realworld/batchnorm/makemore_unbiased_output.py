# expect: fail diagnosis=bn-unbiased-output
# style: makemore (Karpathy, part 3) BatchNorm1d as an nn.Module: xvar = x.var(dim, keepdim=True) (unbiased default) used BOTH for xhat and for the running estimate, `self.out` kept for plotting, running update under torch.no_grad(); buffers and num_batches_tracked added for the contract
# shows on: every fp32 training forward (max abs err 0.19 at (8,3), 0.35 at (2,3,2): x̂ shrunk by sqrt((n-1)/n)); running stats (unbiased, PyTorch momentum) and eval match torch; bf16 (8,3,6) hides it (88% of the allowance)
from __future__ import annotations

import torch
from torch import nn


class BatchNorm1d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        kw = {"device": device, "dtype": dtype}
        # parameters (trained with backprop)
        self.weight = nn.Parameter(torch.ones(num_features, **kw)) if affine else None
        self.bias = nn.Parameter(torch.zeros(num_features, **kw)) if affine else None
        # buffers (trained with a running 'momentum update')
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, **kw))
            self.register_buffer("running_var", torch.ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def forward(self, x):
        if x.ndim == 2:
            dim, shape = 0, (1, -1)
        elif x.ndim == 3:
            dim, shape = (0, 2), (1, -1, 1)
        else:
            raise ValueError(f"expected 2D or 3D input (got {x.ndim}D input)")
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        if self.training or not self.track_running_stats:
            if self.training and x.numel() // x.shape[1] <= 1:
                raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.size()}")
            xmean = h.mean(dim, keepdim=True)  # batch mean
            xvar = h.var(dim, keepdim=True)  # batch variance
        else:
            xmean = self.running_mean.view(shape).to(h.dtype)
            xvar = self.running_var.view(shape).to(h.dtype)
        xhat = (h - xmean) / torch.sqrt(xvar + self.eps)  # normalize to unit variance
        self.out = xhat if self.weight is None else self.weight.view(shape) * xhat + self.bias.view(shape)
        # update the buffers
        if self.training and self.track_running_stats:
            with torch.no_grad():
                self.num_batches_tracked += 1
                m = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
                self.running_mean.copy_((1 - m) * self.running_mean + m * xmean.flatten())
                self.running_var.copy_((1 - m) * self.running_var + m * xvar.flatten())
        return self.out.to(x.dtype)
