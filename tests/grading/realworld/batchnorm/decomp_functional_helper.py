# expect: pass
# style: torch/_decomp `native_batch_norm_helper` style: a module-level function that returns (output, new_running_mean, new_running_var) using var_mean(correction=0) and n/(n-1), and the module copies the new stats into its buffers under no_grad
from __future__ import annotations

import torch
from torch import nn


def _unsqueeze_to_dim(x, dim):
    for _ in range(dim - x.dim() + 1):
        x = x.unsqueeze(-1)
    return x


def batch_norm_helper(input, weight, bias, running_mean, running_var, training, momentum, eps):
    reduction_dims = [0] + list(range(2, input.dim()))
    computation_dtype = torch.float32 if input.dtype in (torch.float16, torch.bfloat16) else input.dtype
    input_acc = input.to(dtype=computation_dtype)
    new_running_mean, new_running_var = running_mean, running_var
    if training:
        biased_var, mean = torch.var_mean(input_acc, dim=reduction_dims, correction=0, keepdim=True)
        rstd = torch.rsqrt(biased_var + eps)
        output = (input_acc - mean) * rstd
        if running_mean is not None:
            save_mean = torch.squeeze(mean, reduction_dims)
            new_running_mean = momentum * save_mean + (1 - momentum) * running_mean
        if running_var is not None:
            n = input.numel() / input.shape[1]
            unbiased_var = torch.squeeze(biased_var, reduction_dims) * (n / (n - 1))
            new_running_var = momentum * unbiased_var + (1 - momentum) * running_var
    else:
        mean = _unsqueeze_to_dim(running_mean.to(computation_dtype), input.dim() - 2)
        invstd = 1 / torch.sqrt(_unsqueeze_to_dim(running_var.to(computation_dtype), input.dim() - 2) + eps)
        output = (input_acc - mean) * invstd
    if weight is not None:
        output = output * _unsqueeze_to_dim(weight.flatten(), input.dim() - 2)
    if bias is not None:
        output = output + _unsqueeze_to_dim(bias.flatten(), input.dim() - 2)
    return output.to(dtype=input.dtype), new_running_mean, new_running_var


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
        self.weight = nn.Parameter(torch.ones(num_features, **kw)) if affine else None
        self.bias = nn.Parameter(torch.zeros(num_features, **kw)) if affine else None
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, **kw))
            self.register_buffer("running_var", torch.ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", torch.zeros((), dtype=torch.long, device=device))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def forward(self, x):
        if x.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {x.dim()}D input)")
        use_batch = self.training or not self.track_running_stats
        if self.training and x.numel() // x.shape[1] <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.size()}")
        factor = 0.0
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        out, new_mean, new_var = batch_norm_helper(
            x, self.weight, self.bias, self.running_mean, self.running_var, use_batch, factor, self.eps
        )
        if self.training and self.track_running_stats:
            with torch.no_grad():
                self.running_mean.copy_(new_mean)
                self.running_var.copy_(new_var)
        return out
