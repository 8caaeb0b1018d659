# expect: fail diagnosis=bn-keras-momentum
# style: d2l (early editions) batch_norm helper: moving = momentum * moving + (1 - momentum) * batch with momentum defaulting to 0.9 (the Keras convention), returned and stored back; everything else (buffers, biased output, unbiased running var, num_batches_tracked) right
# shows on: any explicit momentum other than 0.5: momentum=0.1 moves running stats by 0.9 per step, momentum=0 overwrites them with the batch (should freeze); momentum attribute defaults to 0.9; NOTE with the default 0.9 the running stats equal torch's default momentum=0.1 ones
from __future__ import annotations

import torch
from torch import nn


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum, training, update):
    dims = (0,) if X.dim() == 2 else (0, 2)
    shape = (1, -1) if X.dim() == 2 else (1, -1, 1)
    H = X.float() if X.dtype in (torch.float16, torch.bfloat16) else X
    if not training:
        X_hat = (H - moving_mean.view(shape).to(H.dtype)) / torch.sqrt(moving_var.view(shape).to(H.dtype) + eps)
    else:
        mean = H.mean(dim=dims)
        var = ((H - mean.view(shape)) ** 2).mean(dim=dims)
        X_hat = (H - mean.view(shape)) / torch.sqrt(var.view(shape) + eps)
        if update:
            n = X.numel() // X.shape[1]
            with torch.no_grad():
                moving_mean = momentum * moving_mean + (1.0 - momentum) * mean.to(moving_mean.dtype)
                moving_var = momentum * moving_var + (1.0 - momentum) * (var * n / (n - 1)).to(moving_var.dtype)
    Y = X_hat if gamma is None else gamma.view(shape) * X_hat + beta.view(shape)
    return Y.to(X.dtype), moving_mean, moving_var


class BatchNorm1d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, track_running_stats=True,
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
        use_batch = self.training or not self.track_running_stats
        track = self.training and self.track_running_stats
        momentum = self.momentum
        if track:
            self.num_batches_tracked += 1
            if momentum is None:  # "cumulative": keep a weight of (1 - 1/t) on the old value
                momentum = 1.0 - 1.0 / float(self.num_batches_tracked)
        Y, new_mean, new_var = batch_norm(
            X, self.weight, self.bias, self.running_mean, self.running_var, self.eps, momentum, use_batch, track
        )
        if track:
            self.running_mean.copy_(new_mean)
            self.running_var.copy_(new_var)
        return Y
