# expect: pass
# style: nanoGPT GPTConfig style: the stack keeps its settings in a @dataclass `config` attribute and builds every block and the final norm from it (eps included), blocks take the config fields; a @dataclass under `from __future__ import annotations` needs the file registered in sys.modules before exec_module (the worker does)
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention where each position sees only itself and the past."""

    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must be divisible by n_heads"
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)  # queries, keys and values in one matmul
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape  # batch, time, channels (d_model)
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, nh, T, hs)
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))


class FeedForward(nn.Module):
    """Position-wise MLP: d_model -> d_ff -> d_model with a GELU in between."""

    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.up = nn.Linear(d_model, d_ff)
        self.down = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.gelu(self.up(x)))


@dataclass
class ModelConfig:
    n_layers: int = 3
    d_model: int = 16
    n_heads: int = 4
    d_ff: int = 32
    norm: str = "rmsnorm"
    eps: float = 1e-5


def make_norm(config: ModelConfig) -> nn.Module:
    if config.norm == "rmsnorm":
        return nn.RMSNorm(config.d_model, eps=config.eps)
    if config.norm == "layernorm":
        return nn.LayerNorm(config.d_model, eps=config.eps)
    raise ValueError(config.norm)


class PreNormBlock(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int, norm: str = "rmsnorm", eps: float = 1e-5):
        super().__init__()
        config = ModelConfig(d_model=d_model, n_heads=n_heads, d_ff=d_ff, norm=norm, eps=eps)
        self.norm1 = make_norm(config)
        self.attn = CausalSelfAttention(config.d_model, config.n_heads)
        self.norm2 = make_norm(config)
        self.ffn = FeedForward(config.d_model, config.d_ff)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.ffn(self.norm2(x))
        return x


class PreNormTransformer(nn.Module):
    def __init__(self, n_layers: int, d_model: int, n_heads: int, d_ff: int, norm: str = "rmsnorm", eps: float = 1e-5):
        super().__init__()
        self.config = ModelConfig(n_layers, d_model, n_heads, d_ff, norm, eps)
        c = self.config
        self.blocks = nn.ModuleList([PreNormBlock(c.d_model, c.n_heads, c.d_ff, c.norm, c.eps) for _ in range(c.n_layers)])
        self.final_norm = make_norm(c)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        x = self.final_norm(x)
        return x
