"""Character-level TinyShakespeare (bundled, gzip) or any text file given with --data."""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

import torch

from normkata.errors import InputError

BUNDLED = Path(__file__).resolve().parents[1] / "data" / "tinyshakespeare.txt.gz"


@dataclass
class CharData:
    train: torch.Tensor  # int64 token ids
    valid: torch.Tensor
    vocab: int

    def batch(self, split: str, size: int, block: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        data = self.train if split == "train" else self.valid
        starts = torch.randint(len(data) - block - 1, (size,), generator=generator)
        x = torch.stack([data[s : s + block] for s in starts])
        y = torch.stack([data[s + 1 : s + block + 1] for s in starts])
        return x, y


def load_text(path: Path | None) -> str:
    if path is None:
        with gzip.open(BUNDLED, "rt", encoding="utf-8") as handle:
            return handle.read()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"--data: {path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"--data: {path} is a folder, not a text file") from None
    except UnicodeDecodeError:
        raise InputError(f"--data: {path} is not UTF-8 text") from None
    if len(text) < 2000:
        raise InputError(f"--data: {path} has {len(text)} characters; the labs need at least 2000")
    return text


def char_data(path: Path | None) -> CharData:
    text = load_text(path)
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([index[c] for c in text], dtype=torch.long)
    cut = int(0.9 * len(ids))
    return CharData(ids[:cut], ids[cut:], len(chars))
