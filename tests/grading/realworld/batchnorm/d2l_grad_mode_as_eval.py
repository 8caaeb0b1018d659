# expect: fail diagnosis=bn-eval-uses-batch-stats
# style: d2l's batch_norm decides train vs eval with `torch.is_grad_enabled()` instead of `self.training` (otherwise PyTorch-convention momentum 0.1, biased output, unbiased running var, buffers)
# shows on: `.eval()` forward with grad enabled still uses batch statistics (and keeps updating running stats); training under torch.no_grad() uses the running stats and updates nothing
from __future__ import annotations

import torch
from torch import nn


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    dims = (0,) if X.dim() == 2 else (0, 2)
    shape = (1, -1) if X.dim() == 2 else (1, -1, 1)
    H = X.float() if X.dtype in (torch.float16, torch.bfloat16) else X
    updated = False
    # Use is_grad_enabled to determine whether we are in training mode
    if not torch.is_grad_enabled() and moving_mean is not None:
        X_hat = (H - moving_mean.view(shape).to(H.dtype)) / torch.sqrt(moving_var.view(shape).to(H.dtype) + eps)
    else:
        mean = H.mean(dim=dims)
        var = ((H - mean.view(shape)) ** 2).mean(dim=dims)
        X_hat = (H - mean.view(shape)) / torch.sqrt(var.view(shape) + eps)
        if moving_mean is not None:
            n = X.numel() // X.shape[1]
            with torch.no_grad():
                moving_mean = (1.0 - momentum) * moving_mean + momentum * mean.to(moving_mean.dtype)
                moving_var = (1.0 - momentum) * moving_var + momentum * (var * n / (n - 1)).to(moving_var.dtype)
            updated = True
    Y = X_hat if gamma is None else gamma.view(shape) * X_hat + beta.view(shape)
    return Y.to(X.dtype), moving_mean, moving_var, updated


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

    def forward(self, X):
        if self.training and X.numel() // X.shape[1] <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {X.size()}")
        momentum = self.momentum
        if self.momentum is None and self.num_batches_tracked is not None:
            momentum = 1.0 / float(self.num_batches_tracked + 1)
        Y, new_mean, new_var, updated = batch_norm(
            X, self.weight, self.bias, self.running_mean, self.running_var, self.eps, momentum
        )
        if updated:
            self.num_batches_tracked += 1
            self.running_mean.copy_(new_mean)
            self.running_var.copy_(new_var)
        return Y
