"""CPU of a warm grade, every process counted (runner, zygote, the forked worker), per kata.

Each kata's reference is graded `--grades` times in a row through one grading service, on an
otherwise idle machine; CPU is read from /proc/stat across them, so nothing else may run. Then
two probes on rmsnorm split a grade's cost: a file with a syntax error (no pytest session: the
fixed cost of a grade) and one case selected with `-k` (plus pytest's session). Prints
milliseconds per grade and the ratio to the CPU of `python -c "import torch, pytest"`.
Run: python benchmarks/grade_cpu.py [--grades N] [--kata ID ...].
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _timing import machine_cpu_seconds  # noqa: E402

from normkata.content.katas import load_katas  # noqa: E402
from normkata.grading.client import Grader  # noqa: E402
from normkata.paths import solutions_dir  # noqa: E402

SETTLE_S = 0.3  # the spare for the next grade is forked after each reply: let the last one finish


def cpu_per_grade(grader: Grader, kata: str, file: Path, grades: int, **options: Any) -> tuple[float, int]:
    """Seconds of machine CPU per grade of `file`, and how many cases the last grade had."""
    grader.grade(kata, file, seed=1, **options)  # the service's first grade of this kata
    time.sleep(SETTLE_S)
    before = machine_cpu_seconds()
    for seed in range(2, grades + 2):
        result = grader.grade(kata, file, seed=seed, **options)
    time.sleep(SETTLE_S)
    return (machine_cpu_seconds() - before) / grades, len(result.cases)


def floor_cpu() -> float:
    before = machine_cpu_seconds()
    subprocess.run([sys.executable, "-c", "import torch, pytest"], check=True)
    return machine_cpu_seconds() - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--grades", type=int, default=15)
    parser.add_argument("--kata", action="append", default=[])
    args = parser.parse_args()
    katas = [k for k in load_katas()[0] if not args.kata or k.id in args.kata]
    floor = min(floor_cpu() for _ in range(3))
    print(f"floor  python -c 'import torch, pytest': {floor * 1000:.0f} ms of CPU (best of 3)")
    # The files live outside the service's home: the worker may not read its progress folder.
    with (
        tempfile.TemporaryDirectory() as home,
        tempfile.TemporaryDirectory() as scratch,
        Grader(env={"NORMKATA_HOME": home}) as grader,
    ):
        rows = []
        for kata in katas:
            file = Path(scratch, kata.id, kata.file)
            file.parent.mkdir()
            file.write_text((solutions_dir() / f"{kata.id}.py").read_text(encoding="utf-8"), encoding="utf-8")
            rows.append((kata.id, *cpu_per_grade(grader, kata.id, file, args.grades)))
        broken = Path(scratch, "broken", "rmsnorm.py")
        broken.parent.mkdir()
        broken.write_text("def (:\n", encoding="utf-8")
        rows.append(("rmsnorm, a syntax error", *cpu_per_grade(grader, "rmsnorm", broken, args.grades)))
        reference = Path(scratch, "rmsnorm", "rmsnorm.py")
        if reference.exists():
            rows.append(
                (
                    "rmsnorm, one case (-k)",
                    *cpu_per_grade(grader, "rmsnorm", reference, args.grades, select=["loads torch"]),
                )
            )
    for name, seconds, cases in rows:
        print(f"{name:<28} {seconds * 1000:6.0f} ms  {seconds / floor:5.3f}x  ({cases} cases)")


if __name__ == "__main__":
    main()
