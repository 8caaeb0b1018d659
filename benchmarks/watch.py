"""Time from saving a kata file to its verdict in `normkata watch --jsonl`, per kata.

For each kata, watch starts on its reference solution; the file is then saved `--saves` times
(a comment changes, so each save is a new content) and the time until the verdict's JSON line
arrives is taken. The verdict must be a pass each time. Prints the median and the range per
kata against the target, and the cost of a cold `normkata grade` of the same file as a ratio
against `python -c "import torch, pytest"` (target 1.5x). Run: python benchmarks/watch.py
[--saves N] [--kata ID ...].
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import median_seconds, print_ratios  # noqa: E402

from normkata.content.katas import load_katas  # noqa: E402

WATCH_TARGET_S = 0.3
KERNEL_WATCH_TARGET_S = 0.5  # kernel katas run under Triton's interpreter (a slower target)
COLD_TARGET = 1.5


def save_to_verdict(kata_id: str, file: Path, saves: int, env: dict[str, str]) -> list[float]:
    source = file.read_text(encoding="utf-8")
    command = [sys.executable, "-m", "normkata", "watch", kata_id, "--file", str(file), "--jsonl"]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    assert process.stdout is not None and process.stdin is not None

    def verdict() -> dict:
        ready, _, _ = select.select([process.stdout], [], [], 300)
        if not ready:
            raise SystemExit(f"{kata_id}: no verdict within 300 s")
        return json.loads(process.stdout.readline())

    try:
        verdict()  # the first grade starts the grader: not what a save costs
        samples = []
        for n in range(saves):
            time.sleep(0.3)  # a learner does not save twice within a grade
            started = time.perf_counter()
            file.write_text(f"{source}\n# save {n}\n", encoding="utf-8")
            result = verdict()
            samples.append(time.perf_counter() - started)
            if not result["passed"]:
                raise SystemExit(f"{kata_id}: the reference did not pass under watch")
        process.stdin.write("q\n")
        process.stdin.flush()
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--saves", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3, help="runs of the cold grade and of its floor")
    parser.add_argument("--kata", action="append", default=[])
    args = parser.parse_args()
    katas = [k for k in load_katas()[0] if not args.kata or k.id in args.kata]
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "NORMKATA_HOME": str(Path(scratch) / "home")}
        print(f"watch: save -> verdict, median of {args.saves} saves (target {WATCH_TARGET_S * 1000:.0f} ms)")
        for kata in katas:
            learner = Path(scratch) / kata.id / kata.file
            learner.parent.mkdir()
            learner.write_text(kata.solution.read_text(encoding="utf-8"), encoding="utf-8")
            samples = save_to_verdict(kata.id, learner, args.saves, env)
            median = statistics.median(samples)
            target = KERNEL_WATCH_TARGET_S if kata.requires else WATCH_TARGET_S
            verdict = "ok" if median <= target else f"over the target ({target * 1000:.0f} ms)"
            print(
                f"  {kata.id:<20} {median * 1000:6.0f} ms  (range {min(samples) * 1000:.0f}-"
                f"{max(samples) * 1000:.0f} ms)  {verdict}"
            )
        floor = median_seconds([sys.executable, "-c", "import torch, pytest"], runs=args.runs, env=env)
        rows = []
        for kata in katas:
            learner = Path(scratch) / kata.id / kata.file
            command = [
                sys.executable,
                "-m",
                "normkata",
                "grade",
                kata.id,
                "--file",
                str(learner),
                "--json",
                "--seed",
                "1",
            ]
            rows.append((f"cold normkata grade {kata.id}", median_seconds(command, runs=args.runs, env=env)))
    print_ratios('python -c "import torch, pytest"', floor, rows, target=COLD_TARGET)


if __name__ == "__main__":
    main()
