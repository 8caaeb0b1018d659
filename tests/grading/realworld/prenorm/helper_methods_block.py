# expect: pass
# style: torch nn.TransformerEncoderLayer(norm_first=True) layout: `_sa_block` / `_ff_block` helper methods, `norm_first` flag kept as an attribute, nn.RMSNorm / nn.LayerNorm chosen by a dict of factories
from __future__ import annotations

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


_NORMS = {"rmsnorm": nn.RMSNorm, "layernorm": nn.LayerNorm}


class PreNormBlock(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int, norm: str = "rmsnorm", eps: float = 1e-5):
        super().__init__()
        if norm not in _NORMS:
            raise ValueError(f"norm must be one of {sorted(_NORMS)}, got {norm!r}")
        self.norm_first = True
        self.norm1 = _NORMS[norm](d_model, eps=eps)
        self.attn = CausalSelfAttention(d_model, n_heads)
        self.norm2 = _NORMS[norm](d_model, eps=eps)
        self.ffn = FeedForward(d_model, d_ff)

    def _sa_block(self, x: torch.Tensor) -> torch.Tensor:
        return self.attn(x)

    def _ff_block(self, x: torch.Tensor) -> torch.Tensor:
        return self.ffn(x)

    def forward(self, src: torch.Tensor) -> torch.Tensor:
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x))
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x))
            x = self.norm2(x + self._ff_block(x))
        return x


class PreNormTransformer(nn.Module):
    def __init__(self, n_layers: int, d_model: int, n_heads: int, d_ff: int, norm: str = "rmsnorm", eps: float = 1e-5):
        super().__init__()
        self.blocks = nn.ModuleList(PreNormBlock(d_model, n_heads, d_ff, norm=norm, eps=eps) for _ in range(n_layers))
        self.final_norm = _NORMS[norm](d_model, eps=eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for mod in self.blocks:
            x = mod(x)
        return self.final_norm(x)
