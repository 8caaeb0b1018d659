"""The repository refers to nothing outside itself: no design notes or issue tracker that a
reader of the code or the docs cannot open."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"\b(?:GRADING|SPEC|STYLE)\.md\b|\b[Ii]ssues? \d+\b")


def test_nothing_refers_to_notes_outside_the_repository() -> None:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False).stdout.split()
    files = [ROOT / name for name in tracked] or [*ROOT.glob("normkata/**/*.py"), *ROOT.glob("docs/**/*.md")]
    found = []
    for path in files:
        if path.suffix not in (".py", ".md", ".yaml", ".toml", ".sh", "") or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            if OUTSIDE.search(line) and path.name != "test_self_contained.py":
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "\n".join(found[:20])


#: A formatter's opt-out, written so that this file does not match itself.
OPT_OUT = re.compile("fmt" + r": (?:skip|off)\b")


def test_no_line_opts_out_of_the_formatter() -> None:
    """One layout: ruff format's. A marker would keep a second, hand-kept one beside it."""
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted(ROOT.glob("**/*.py"))
        if ".venv" not in path.parts and ".git" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1)
        if OPT_OUT.search(line)
    ]
    assert not found, found[:20]


def test_the_opt_out_pattern_finds_a_marker() -> None:
    assert OPT_OUT.search("x = [1,2]  # fmt" + ": skip") and not OPT_OUT.search("# format: skip the header")
