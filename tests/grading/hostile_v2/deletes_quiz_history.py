# expect: fail
# trick: deletes every row of every table in $NORMKATA_HOME/normkata.db (quiz answers, reviews, attempts), then unlinks the database and its journals; the database must be intact after the grade.
import os
import sqlite3
from pathlib import Path

import torch
from torch import nn

HOME = Path(os.environ.get("NORMKATA_HOME", "."))


def _erase():
    database = HOME / "normkata.db"
    try:
        connection = sqlite3.connect(database, timeout=1)
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            connection.execute(f'DELETE FROM "{table}"')
        connection.commit()
        connection.close()
    except Exception:
        pass
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            Path(f"{database}{suffix}").unlink()
        except OSError:
            pass


_erase()


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
