"""Cost of grading each kata's reference, as ratios against `python -c "import torch, pytest"`.

Each kata is graded confined (the default) and unconfined (NORMKATA_SANDBOX=off), so the
sandbox's own cost shows. Run: python benchmarks/grade.py [--runs N]. Target: at most 2.0x;
confinement within 5% of the unconfined time.
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

from normkata.content.katas import load_katas  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
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
        for kata in load_katas()[0]:
            learner = Path(scratch) / kata.file
            shutil.copy(kata.solution, learner)
            # Every case must pass for the command to exit 0, which median_seconds checks.
            command = [python, "-m", "normkata", "grade", kata.id, "--file", str(learner), "--json", "--seed", "1"]
            confined = median_seconds(command, runs=runs, env=env)
            unconfined = median_seconds(command, runs=runs, env={**env, "NORMKATA_SANDBOX": "off"})
            rows.append((f"normkata grade {kata.id}", confined))
            rows.append((f"  same, NORMKATA_SANDBOX=off ({confined / unconfined - 1:+.1%})", unconfined))
    print_ratios('python -c "import torch, pytest"', floor, rows, target=TARGET)


if __name__ == "__main__":
    main()
