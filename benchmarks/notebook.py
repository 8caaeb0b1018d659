"""A second `%%kata` cell's grade against watch's re-grade of the same file, per kata.

The notebook: an IPython shell (as a plain IPython terminal runs one; needs the `notebook` extra)
with `%load_ext normkata`. Its first `%%kata` cell starts the grading service, which is not what a
cell costs; then a cell holding the kata's reference (a comment changed each time, so each is a
new file) is run `--cells` times, and the time from running it to its report displayed is taken.
watch: benchmarks/watch.py's save -> verdict on a file of the same text. Both must pass each time.
The two take turns, `--rounds` times, so that a change in the machine's load hits both alike.
Prints each median and range and their ratio against the target (1.5x).
Run: python benchmarks/notebook.py [--cells N] [--rounds N] [--kata ID ...].
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from watch import save_to_verdict  # noqa: E402

from normkata.content.katas import load_katas  # noqa: E402

TARGET = 1.5  # a second cell's grade against watch's re-grade


def notebook_cells(shell: Any, kata_id: str, source: str, cells: int) -> list[float]:
    """Seconds from running each `%%kata` cell to its report, after one cell that may start the service."""
    from IPython.utils.capture import capture_output

    samples = []
    for n in range(cells + 1):
        started = time.perf_counter()
        with capture_output() as captured:
            result = shell.run_cell(f"%%kata {kata_id}\n{source}\n# cell {n}\n")
        took = time.perf_counter() - started
        shown = "".join(output.data.get("text/plain", "") for output in captured.outputs)
        if result.error_in_exec is not None or "PASSED" not in shown:
            raise SystemExit(f"{kata_id}: the reference did not pass in a %%kata cell: {captured.stderr or shown}")
        if n:  # the first cell starts the grading service (or is the first of its kata)
            samples.append(took)
    return samples


def shown_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:6.0f} ms (range {min(samples) * 1000:.0f}-{max(samples) * 1000:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cells", type=int, default=7, help="cells (and watch's saves) per kata and round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--kata", action="append", default=[])
    args = parser.parse_args()
    katas = [k for k in load_katas()[0] if (k.id in args.kata if args.kata else not k.missing_extras())]
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        os.environ.update(NORMKATA_HOME=str(home), NORMKATA_WORKSPACE=str(Path(scratch) / "workspace"))
        os.environ.update(IPYTHONDIR=str(Path(scratch) / "ipython"), NORMKATA_LANG="en")
        from IPython.core.interactiveshell import InteractiveShell
        from traitlets.config import Config

        config = Config()
        config.HistoryManager.hist_file = ":memory:"
        shell = InteractiveShell.instance(config=config)
        shell.run_cell("%load_ext normkata")
        rounds = f"median of {args.cells} x {args.rounds}"
        print(f"a second %%kata cell against watch's re-grade, {rounds} (target {TARGET}x)")
        try:
            for kata in katas:
                source = kata.solution.read_text(encoding="utf-8")
                learner = Path(scratch) / kata.id / kata.file
                learner.parent.mkdir()
                learner.write_text(source, encoding="utf-8")
                watched: list[float] = []
                cells: list[float] = []
                for _round in range(args.rounds):
                    watched += save_to_verdict(kata.id, learner, args.cells, dict(os.environ))
                    learner.write_text(source, encoding="utf-8")
                    cells += notebook_cells(shell, kata.id, source, args.cells)
                ratio = statistics.median(cells) / statistics.median(watched)
                verdict = "ok" if ratio <= TARGET else f"over the {TARGET}x target"
                print(f"  {kata.id:<20} %%kata {shown_ms(cells)}  watch {shown_ms(watched)}  {ratio:4.2f}x {verdict}")
        finally:
            shell.run_cell("%unload_ext normkata")
            InteractiveShell.clear_instance()


if __name__ == "__main__":
    main()
