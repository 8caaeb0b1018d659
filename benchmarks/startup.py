"""Start-up cost of the CLI, as ratios against `python -c "import click, rich"`.

Run: python benchmarks/startup.py [--runs N]

Every command runs as an installed normkata would: bytecode is cached (in a private
PYTHONPYCACHEPREFIX, even where PYTHONDONTWRITEBYTECODE is set, so that normkata is not
recompiled on every run while click and rich load from their compiled files), and the
warm-up round fills the parsed-bank cache that a learner's first quiz leaves behind.

The commands take turns, round after round, so that a machine whose load changes during the
run slows the floor and the commands alike; each figure is the median over the rounds.
"Reaching the first question" stops the clock when the question's header is on stdout (its
text and choices are printed by the same call stack right after); "the whole run" also
includes the end of input, the summary and the interpreter's exit.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import print_ratios  # noqa: E402

HELP_TARGET = 1.5
QUIZ_TARGET = 2.0
FIRST_QUESTION = b"Question 1/1"


def _whole_run(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=b"", capture_output=True, env=env, check=True)
    return time.perf_counter() - start


def _until_output(command: list[str], env: dict[str, str], marker: bytes) -> float:
    """Seconds until `marker` appears on the command's stdout; the command then gets EOF."""
    start = time.perf_counter()
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env) as process:
        assert process.stdout is not None and process.stdin is not None
        seen = b""
        while marker not in seen:
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                raise RuntimeError(f"{command} exited without printing {marker!r}")
            seen += chunk
        elapsed = time.perf_counter() - start
        process.stdin.close()
        process.stdout.read()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    python = sys.executable
    # The console script is what a learner types; -m normkata is the same code path.
    script = Path(python).with_name("normkata")
    entry = [str(script)] if script.exists() else [python, "-m", "normkata"]
    quiz = [*entry, "quiz", "-n", "1"]
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as bytecode:
        env = {**os.environ, "NORMKATA_HOME": home, "NORMKATA_LANG": "en", "PYTHONPYCACHEPREFIX": bytecode}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        measures: dict[str, Callable[[], float]] = {
            "floor": lambda: _whole_run([python, "-c", "import click, rich"], env),
            "normkata --help": lambda: _whole_run([*entry, "--help"], env),
            "quiz: reaching the first question": lambda: _until_output(quiz, env, FIRST_QUESTION),
            "quiz -n 1: the whole run": lambda: _whole_run(quiz, env),
        }
        samples: dict[str, list[float]] = {name: [] for name in measures}
        for round_number in range(runs + 1):  # round 0 warms the file cache, bytecode and bank cache
            for name, measure in measures.items():
                seconds = measure()
                if round_number:
                    samples[name].append(seconds)
    median = {name: statistics.median(values) for name, values in samples.items()}
    floor = median.pop("floor")
    rows = list(median.items())
    print_ratios('python -c "import click, rich"', floor, rows[:1], target=HELP_TARGET)
    print_ratios('python -c "import click, rich"', floor, rows[1:], target=QUIZ_TARGET)


if __name__ == "__main__":
    main()
