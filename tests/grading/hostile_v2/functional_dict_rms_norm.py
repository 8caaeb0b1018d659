# expect: fail
# trick: takes rms_norm out of vars(torch.nn.functional) and out of torch.nn.modules.normalization's RMSNorm class (constructed with object.__new__ to dodge a patched __init__); using either must be a failed case.
import torch
from torch import nn

_FUNCTIONAL = vars(torch.nn.functional).get("rms" + "_norm")
_MODULE = vars(torch.nn.modules.normalization).get("RMS" + "Norm")


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        try:
            return _FUNCTIONAL(x, (x.shape[-1],), self.weight, self.eps)
        except Exception:
            pass
        try:
            borrowed = object.__new__(_MODULE)
            nn.Module.__init__(borrowed)
            borrowed.normalized_shape, borrowed.eps, borrowed.elementwise_affine = (x.shape[-1],), self.eps, True
            borrowed.weight = self.weight
            return _MODULE.forward(borrowed, x)
        except Exception:
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
