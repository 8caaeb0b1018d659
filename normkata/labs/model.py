"""A small character Transformer whose norm placement and type are switches (nanoGPT-sized)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class Config:
    vocab: int
    block: int = 64  # context length
    layers: int = 2
    d_model: int = 128
    heads: int = 4
    placement: str = "pre"  # pre | post | sandwich | none
    norm: str = "layernorm"  # layernorm | rmsnorm | dyt


class DyT(nn.Module):
    """Dynamic Tanh ("Transformers without Normalization"): weight · tanh(alpha · x) + bias, no statistic."""

    def __init__(self, d: int, alpha_init: float = 0.5) -> None:
        super().__init__()
        self.alpha = nn.Parameter(torch.full((1,), alpha_init))  # one learnable scalar, as in the authors' code
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.alpha * x) * self.weight + self.bias


class Attention(nn.Module):
    def __init__(self, d_model: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in self.qkv(x).split(C, dim=2))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, nh, T, hs)
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, config: Config, make_norm: Callable[[int], nn.Module]) -> None:
        super().__init__()
        self.placement = config.placement
        self.norm1, self.norm2 = make_norm(config.d_model), make_norm(config.d_model)
        if config.placement == "sandwich":  # Gemma 2/3: a norm on each sublayer's output too
            self.post1, self.post2 = make_norm(config.d_model), make_norm(config.d_model)
        self.attn = Attention(config.d_model, config.heads)
        self.mlp = nn.Sequential(
            nn.Linear(config.d_model, 4 * config.d_model), nn.GELU(), nn.Linear(4 * config.d_model, config.d_model)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.placement == "post":
            x = self.norm1(x + self.attn(x))
            return self.norm2(x + self.mlp(x))
        if self.placement == "sandwich":
            x = x + self.post1(self.attn(self.norm1(x)))
            return x + self.post2(self.mlp(self.norm2(x)))
        x = x + self.attn(self.norm1(x))  # pre (with Identity norms this is "none")
        return x + self.mlp(self.norm2(x))


class CharTransformer(nn.Module):
    def __init__(self, config: Config, make_norm: Callable[[int], nn.Module]) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab, config.d_model)
        self.position = nn.Embedding(config.block, config.d_model)
        self.blocks = nn.ModuleList([Block(config, make_norm) for _ in range(config.layers)])
        # Pre-Norm and sandwich need a final norm; Post-Norm already ends on one; "none" has none.
        self.final_norm = make_norm(config.d_model) if config.placement in ("pre", "sandwich") else nn.Identity()
        self.head = nn.Linear(config.d_model, config.vocab)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        T = idx.shape[1]
        x = self.embed(idx) + self.position(torch.arange(T, device=idx.device))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.final_norm(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
