# expect: fail diagnosis=bn-unbiased-output
# style: two independent deviations: no `num_batches_tracked` buffer (a Python int counts steps, so momentum=None still works) AND x.var(dims) with the unbiased default in the OUTPUT; must give exactly ONE structural finding (the missing buffer: state_dict keys / strict load of torch's state_dict / buffer list all trace to it) plus the bn-unbiased-output diagnosis
# shows on: structure: state_dict lacks num_batches_tracked; values: every training forward (8x3: output too large by sqrt(8/7)); running stats and eval are right
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
            if self.training and x.numel() // x.shape[1] <= 1:
                raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.size()}")
            mean = h.mean(dims)
            var = h.var(dims)  # unbiased: used for the running estimate AND (wrongly) for the output
            if self.training and self.track_running_stats:
                self.steps += 1
                m = 1.0 / self.steps if self.momentum is None else self.momentum
                with torch.no_grad():
                    self.running_mean.lerp_(mean.to(self.running_mean.dtype), m)
                    self.running_var.lerp_(var.to(self.running_var.dtype), m)
        else:
            mean, var = self.running_mean.to(h.dtype), self.running_var.to(h.dtype)
        y = (h - mean.view(shape)) / torch.sqrt(var.view(shape) + self.eps)
        if self.affine:
            y = y * self.weight.view(shape) + self.bias.view(shape)
        return y.to(x.dtype)
