# expect: fail
# style: every value right (biased output, unbiased running var, momentum=None via a Python int step counter) but no `num_batches_tracked` buffer, as in many hand-written BatchNorms (d2l, makemore-as-module); fails on module state only
# shows on: state_dict keys lack num_batches_tracked; load_state_dict(trained nn.BatchNorm1d.state_dict(), strict=True) raises "Unexpected key(s) ... num_batches_tracked"; all outputs and running stats match torch
from __future__ import annotations

import torch
from torch import nn


class BatchNorm1d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(num_features, **kw)) if affine else None
        self.bias = nn.Parameter(torch.zeros(num_features, **kw)) if affine else None
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, **kw))
            self.register_buffer("running_var", torch.ones(num_features, **kw))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
        self.steps = 0

    def forward(self, x):
        dims = (0,) if x.dim() == 2 else (0, 2)
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        if self.training or not self.track_running_stats:
            n = x.numel() // x.shape[1]
            if self.training and n <= 1:
                raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.size()}")
            mean = h.mean(dims)
            var = h.var(dims, unbiased=False)
            if self.training and self.track_running_stats:
                self.steps += 1
                m = 1.0 / self.steps if self.momentum is None else self.momentum
                with torch.no_grad():
                    self.running_mean.lerp_(mean.to(self.running_mean.dtype), m)
                    self.running_var.lerp_((var * n / (n - 1)).to(self.running_var.dtype), m)
        else:
            mean, var = self.running_mean.to(h.dtype), self.running_var.to(h.dtype)
        y = (h - mean.view(shape)) / torch.sqrt(var.view(shape) + self.eps)
        if self.affine:
            y = y * self.weight.view(shape) + self.bias.view(shape)
        return y.to(x.dtype)
