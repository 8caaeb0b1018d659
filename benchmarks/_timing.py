"""Median wall time of a command, and the ratio table the benchmarks print."""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Sequence


def median_seconds(command: Sequence[str], *, runs: int, stdin: str = "", env: dict[str, str] | None = None) -> float:
    """Median wall time of `command` over `runs` runs, after one warm-up run."""
    samples = []
    for attempt in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, check=True)
        if attempt:  # the first run warms the file cache
            samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def print_ratios(floor_name: str, floor: float, rows: list[tuple[str, float]], target: float | None = None) -> None:
    print(f"floor  {floor_name}: {floor * 1000:.1f} ms (median)")
    for name, seconds in rows:
        ratio = seconds / floor
        verdict = "" if target is None else ("  ok" if ratio <= target else f"  over the {target:.1f}x target")
        print(f"{name:<40} {seconds * 1000:8.1f} ms  {ratio:5.2f}x{verdict}")


def machine_cpu_seconds() -> float:
    """CPU time every process on this machine has used since boot (Linux's /proc/stat): the
    difference across a run counts processes a parent never waits for, such as a forkserver's
    children, which `time` and rusage miss."""
    import os

    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")
