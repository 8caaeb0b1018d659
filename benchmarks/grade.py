"""Cost of grading each kata's reference, as ratios against `python -c "import torch, pytest"`.

Run: python benchmarks/grade.py [--runs N]. Target: at most 2.0x.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import median_seconds, print_ratios  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KATAS = ("rmsnorm", "layernorm", "batchnorm", "prenorm")
TARGET = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    python = sys.executable
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "NORMKATA_HOME": str(Path(scratch) / "home")}
        floor = median_seconds([python, "-c", "import torch, pytest"], runs=runs, env=env)
        rows = []
        for kata in KATAS:
            learner = Path(scratch) / f"{kata}.py"
            shutil.copy(ROOT / "solutions" / f"{kata}.py", learner)
            # Every case must pass for the command to exit 0, which median_seconds checks.
            command = [python, "-m", "normkata", "grade", kata, "--file", str(learner), "--json"]
            rows.append((f"normkata grade {kata}", median_seconds(command, runs=runs, env=env)))
    print_ratios('python -c "import torch, pytest"', floor, rows, target=TARGET)


if __name__ == "__main__":
    main()
