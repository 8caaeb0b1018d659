"""Start-up cost of the CLI, as ratios against `python -c "import click, rich"`.

Run: python benchmarks/startup.py [--runs N]

Every command runs as an installed normkata would: bytecode is cached (in a private
PYTHONPYCACHEPREFIX, even where PYTHONDONTWRITEBYTECODE is set, so that normkata is not
recompiled on every run while click and rich load from their compiled files), and the
warm-up run fills the parsed-bank cache that a learner's first quiz leaves behind.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import median_seconds, print_ratios  # noqa: E402

HELP_TARGET = 1.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    python = sys.executable
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as bytecode:
        env = {**os.environ, "NORMKATA_HOME": home, "NORMKATA_LANG": "en", "PYTHONPYCACHEPREFIX": bytecode}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        floor = median_seconds([python, "-c", "import click, rich"], runs=runs, env=env)
        # The console script is what a learner types; -m normkata is the same code path.
        script = Path(python).with_name("normkata")
        entry = [str(script)] if script.exists() else [python, "-m", "normkata"]
        rows = [
            ("normkata --help", median_seconds([*entry, "--help"], runs=runs, env=env)),
            # Reaching the first question: load the bank, open the store, print it; EOF ends.
            (
                "normkata quiz -n 1 (to first question)",
                median_seconds([*entry, "quiz", "-n", "1"], runs=runs, env=env),
            ),
        ]
    print_ratios('python -c "import click, rich"', floor, rows[:1], target=HELP_TARGET)
    print_ratios('python -c "import click, rich"', floor, rows[1:])


if __name__ == "__main__":
    main()
