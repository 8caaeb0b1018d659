# expect: fail
# trick: reaches torch's rms_norm through torch._C._VariableFunctions (and aten::_fused_rms_norm), below the Python-level names a grader may replace; using it must be a failed case.
import torch
from torch import nn

_NAME = "".join(["rms", "_", "norm"])
_KERNEL = getattr(torch._C._VariableFunctions, _NAME, None)


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        try:
            return _KERNEL(x, [x.shape[-1]], self.weight, self.eps)
        except Exception:
            pass
        try:
            return getattr(torch.ops.aten, "_fused_" + _NAME)(x, [x.shape[-1]], self.weight, self.eps)[0]
        except Exception:
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
