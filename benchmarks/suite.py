"""The project's test suite: wall time, the machine's CPU across it, and where the time goes.

Two tiers: `full`, the README's command (`pytest -n auto`, target 310 s on the idle 2-core
machine), and `fast`, the contributors' inner loop (`pytest -m "not slow" -n auto`, target 90 s).
`--busy N` runs N CPU-bound processes beside the suite (`python -c "while True: pass"`), the
check that no test depends on an idle machine; `--repeat K` runs the tier K times.

Run on an otherwise idle machine: CPU is read from /proc/stat, so it counts every process (the
graders' forked workers included) and anything else running. Prints the wall time against the
tier's target and as a ratio to `python -c "import torch, pytest"`, the CPU in core-seconds and
how busy the cores were, and the test files that took longest (sum of their tests' durations,
as pytest's --durations reports them).
Run: python benchmarks/suite.py [--tier full|fast] [--busy N] [--repeat K] [--top N].
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import machine_cpu_seconds, median_seconds  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: tier -> (pytest's selection, target wall time on the idle 2-core machine)
TIERS = {"full": ([], 310.0), "fast": (["-m", "not slow"], 90.0)}
DURATION = re.compile(r"^(\d+\.\d+)s (?:setup|call|teardown)\s+(\S+?)::", re.MULTILINE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tier", choices=sorted(TIERS), default="full")
    parser.add_argument("--busy", type=int, default=0, help="CPU-bound processes running beside the suite")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--top", type=int, default=12)
    options = parser.parse_args()
    floor = median_seconds([sys.executable, "-c", "import torch, pytest"], runs=3)
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(options.busy)]
    try:
        failed = any([run_tier(options.tier, floor, options.top, options.busy) for _ in range(options.repeat)])
    finally:
        for burner in burners:
            burner.kill()
    sys.exit(1 if failed else 0)


def run_tier(tier: str, floor: float, top: int, busy: int) -> bool:
    """One run of the tier, reported; True when it failed."""
    selection, target = TIERS[tier]
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "NORMKATA_HOME": home}
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "auto",
            *selection,
            "-q",
            "-p",
            "no:cacheprovider",
            "--durations=0",
        ]
        cpu_before, started = machine_cpu_seconds(), time.perf_counter()
        run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        wall, cpu = time.perf_counter() - started, machine_cpu_seconds() - cpu_before
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-300:]
    print(f"{tier} tier, {busy} busy process(es) beside it: {summary} (exit code {run.returncode})")
    for line in run.stdout.splitlines():
        if line.startswith(("FAILED", "ERROR")):
            print(f"  {line}")
    verdict = "ok" if wall <= target else f"over the {target:.0f} s target"
    if busy:
        verdict = f"target {target:.0f} s is for an idle machine"
    print(f"wall   {wall:7.1f} s  {wall / floor:6.1f}x python -c 'import torch, pytest' ({floor:.2f} s)  {verdict}")
    cores = os.cpu_count() or 1
    print(f"cpu    {cpu:7.1f} core-s on {cores} cores: busy {cpu / (wall * cores):.0%} of the run")
    by_file: Counter[str] = Counter()
    for seconds, path in DURATION.findall(run.stdout):
        by_file[path] += float(seconds)
    print(f"tests' durations, summed: {sum(by_file.values()):.1f} s; the longest files:")
    for path, seconds in by_file.most_common(top):
        print(f"  {seconds:7.1f} s  {path}")
    return run.returncode != 0


if __name__ == "__main__":
    main()
