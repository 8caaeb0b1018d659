"""Grade each kata's reference on many seeds through the warm grading service: how often a
correct file fails, and on which cases. Run: python benchmarks/seeds.py [--seeds N] [--first S]
[--kata ID ...]. Prints, per kata, failures out of N and each failing case with its seed.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from normkata.content.katas import load_katas
from normkata.grading.client import Grader
from normkata.paths import solutions_dir


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=150)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--kata", action="append", default=[])
    args = parser.parse_args()
    katas = [k for k in load_katas()[0] if not args.kata or k.id in args.kata]
    with tempfile.TemporaryDirectory() as tmp, Grader() as service:
        for kata in katas:
            folder = Path(tmp) / kata.id
            folder.mkdir()
            file = folder / kata.file
            shutil.copy(solutions_dir() / f"{kata.id}.py", file)
            started, failed = time.perf_counter(), 0
            for seed in range(args.first, args.first + args.seeds):
                result = service.grade(kata.id, file, seed=seed)
                bad = [c for c in result.cases if c.status.value in ("failed", "error")]
                if bad:
                    failed += 1
                    for case in bad:
                        print(f"  {kata.id} seed {seed}: {case.name}: {case.message[:300]}", flush=True)
            print(f"{kata.id}: {failed}/{args.seeds} seeds fail ({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
