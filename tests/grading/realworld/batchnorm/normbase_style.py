# expect: pass
# style: torch's `_NormBase`/`_BatchNorm` layout: register_buffer / register_parameter(None), `reset_running_stats` + `reset_parameters`, `_check_input_dim`, `exponential_average_factor` with momentum=None as 1/num_batches_tracked, `bn_training` flag, math written out instead of F.batch_norm
from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor, nn
from torch.nn import init
from torch.nn.parameter import Parameter


class BatchNorm1d(nn.Module):
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum: Optional[float] = 0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(torch.empty(num_features, **factory_kwargs))
            self.bias = Parameter(torch.empty(num_features, **factory_kwargs))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, **factory_kwargs))
            self.register_buffer("running_var", torch.ones(num_features, **factory_kwargs))
            self.running_mean: Optional[Tensor]
            self.running_var: Optional[Tensor]
            self.register_buffer(
                "num_batches_tracked",
                torch.tensor(0, dtype=torch.long, **{k: v for k, v in factory_kwargs.items() if k != "dtype"}),
            )
            self.num_batches_tracked: Optional[Tensor]
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")

    def extra_repr(self):
        return (
            "{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
            "track_running_stats={track_running_stats}".format(**self.__dict__)
        )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)

        if self.momentum is None:
            exponential_average_factor = 0.0
        else:
            exponential_average_factor = self.momentum

        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked.add_(1)
                if self.momentum is None:  # use cumulative moving average
                    exponential_average_factor = 1.0 / float(self.num_batches_tracked)
                else:  # use exponential moving average
                    exponential_average_factor = self.momentum

        if self.training:
            bn_training = True
        else:
            bn_training = (self.running_mean is None) and (self.running_var is None)

        reduce = [0] + list(range(2, input.dim()))
        shape = [1, -1] + [1] * (input.dim() - 2)
        acc = input.float() if input.dtype in (torch.float16, torch.bfloat16) else input
        if bn_training:
            n = input.numel() // input.size(1)
            if n <= 1 and self.training:
                raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.size()}")
            mean = acc.mean(reduce)
            var = acc.var(reduce, unbiased=False)
            if self.training and self.running_mean is not None:
                with torch.no_grad():
                    f = exponential_average_factor
                    self.running_mean.mul_(1 - f).add_(mean.detach().to(self.running_mean.dtype), alpha=f)
                    unbiased = var.detach() * (n / (n - 1))
                    self.running_var.mul_(1 - f).add_(unbiased.to(self.running_var.dtype), alpha=f)
        else:
            mean = self.running_mean.to(acc.dtype)
            var = self.running_var.to(acc.dtype)
        out = (acc - mean.view(shape)) / torch.sqrt(var.view(shape) + self.eps)
        if self.weight is not None:
            out = out * self.weight.view(shape) + self.bias.view(shape)
        return out.to(input.dtype)
