# expect: fail diagnosis=bn-running-stats-in-graph
# style: registered buffers, right formulas, but the update is `self.running_mean = (1 - m) * self.running_mean + m * mean` with no detach / no_grad: when the input requires grad the buffers become non-leaf tensors that carry the autograd graph
# shows on: after one training forward on an input that requires grad, running_mean/running_var have requires_grad=True and a grad_fn; train+backward then eval forward+backward raises "Trying to backward through the graph a second time"; values all match torch
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
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

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
                self.num_batches_tracked += 1
                m = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
                self.running_mean = (1 - m) * self.running_mean + m * mean.to(self.running_mean.dtype)
                self.running_var = (1 - m) * self.running_var + m * (var * n / (n - 1)).to(self.running_var.dtype)
        else:
            mean, var = self.running_mean.to(h.dtype), self.running_var.to(h.dtype)
        y = (h - mean.view(shape)) / torch.sqrt(var.view(shape) + self.eps)
        if self.affine:
            y = y * self.weight.view(shape) + self.bias.view(shape)
        return y.to(x.dtype)
