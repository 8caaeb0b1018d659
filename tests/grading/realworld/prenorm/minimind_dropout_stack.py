# expect: pass
# style: MiniMind model layout: its own RMSNorm class (`_norm` helper, `(weight * _norm(x.float())).type_as(x)`), `nn.Dropout(p=0.0)` child on the stack applied to the input, blocks named by position in a ModuleList, final norm; submodule names adapted to the contract
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


class RMSNorm(torch.nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        return (self.weight * self._norm(x.float())).type_as(x)


def build_norm(kind: str, dim: int, eps: float) -> nn.Module:
    return RMSNorm(dim, eps=eps) if kind == "rmsnorm" else nn.LayerNorm(dim, eps=eps)


class PreNormBlock(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int, norm: str = "rmsnorm", eps: float = 1e-5):
        super().__init__()
        self.norm1 = build_norm(norm, d_model, eps)  # MiniMind: input_layernorm
        self.attn = CausalSelfAttention(d_model, n_heads)
        self.norm2 = build_norm(norm, d_model, eps)  # MiniMind: post_attention_layernorm
        self.ffn = FeedForward(d_model, d_ff)

    def forward(self, hidden_states):
        residual = hidden_states
        hidden_states = self.attn(self.norm1(hidden_states))
        hidden_states += residual
        hidden_states = hidden_states + self.ffn(self.norm2(hidden_states))
        return hidden_states


class PreNormTransformer(nn.Module):
    def __init__(self, n_layers: int, d_model: int, n_heads: int, d_ff: int, norm: str = "rmsnorm", eps: float = 1e-5):
        super().__init__()
        self.num_hidden_layers = n_layers
        self.dropout = nn.Dropout(0.0)
        self.blocks = nn.ModuleList([PreNormBlock(d_model, n_heads, d_ff, norm, eps) for _ in range(n_layers)])
        self.final_norm = build_norm(norm, d_model, eps)

    def forward(self, x):
        hidden_states = self.dropout(x)
        for layer_idx, layer in enumerate(self.blocks):
            hidden_states = layer(hidden_states)
        return self.final_norm(hidden_states)
