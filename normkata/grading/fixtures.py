"""Learner files with a known verdict, used to prove a kata's suite: the project's tests and
`normkata content check --deep` read them from here.

A fixture's first line says what must happen: `# expect: pass`, or `# expect: fail`, optionally
with `diagnosis=ID` (a misconception the report must name) or `message=TEXT` (text some
failing case's message must contain). They live in a source checkout under
`tests/grading/fixtures/<kata>/` (ours), `tests/grading/realworld/<kata>/` (styles found in
public code, written by us) and as one-edit changes of a correct file in
`tests/grading/mutants.py` (read as data, never imported).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from normkata.paths import content_root, solutions_dir


@dataclass(frozen=True)
class Fixture:
    kata: str
    group: str  # the folder it came from (`<kata>`, `realworld/<kata>`, `hostile`)
    name: str
    source: str
    passes: bool
    diagnosis: str | None = None
    message: str | None = None

    @property
    def id(self) -> str:
        return f"{self.group}/{self.name}"


def grading_tests_dir() -> Path | None:
    """tests/grading of a source checkout; None for an installed wheel (fixtures do not ship)."""
    folder = content_root() / "tests" / "grading"
    return folder if folder.is_dir() else None


def parse_expectation(words: str) -> tuple[bool, str | None, str | None]:
    verdict, _, rest = words.partition(" ")
    diagnosis = rest.removeprefix("diagnosis=") if rest.startswith("diagnosis=") else None
    message = rest.removeprefix("message=") if rest.startswith("message=") else None
    return verdict == "pass", diagnosis, message


def from_file(kata: str, group: str, path: Path) -> Fixture:
    source = path.read_text(encoding="utf-8")
    header = source.splitlines()[0] if source else ""
    if not header.startswith("# expect: "):
        raise ValueError(f"{path}:1: a fixture's first line must say what to expect (# expect: pass|fail ...)")
    return Fixture(kata, group, path.stem, source, *parse_expectation(header.removeprefix("# expect: ")))


def kata_fixtures(kata: str, root: Path | None = None) -> list[Fixture]:
    """Every fixture of one kata: its files in fixtures/ and realworld/, and its mutants."""
    root = root or grading_tests_dir()
    if root is None:
        return []
    found = [from_file(kata, kata, p) for p in sorted((root / "fixtures" / kata).glob("*.py"))]
    found += [from_file(kata, f"realworld/{kata}", p) for p in sorted((root / "realworld" / kata).glob("*.py"))]
    found += [m for m in mutants(root) if m.kata == kata]
    return found


def mutants(root: Path) -> list[Fixture]:
    """The edits of mutants.py applied to the correct file each starts from."""
    path = root / "mutants.py"
    if not path.is_file():
        return []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    entries = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "MUTANTS" for t in node.targets)
    )
    found = []
    for kata, name, expect, comment, base, edits in entries:
        start = solutions_dir() / f"{kata}.py" if base == "solution" else root / "fixtures" / kata / f"{base}.py"
        text = start.read_text(encoding="utf-8").split("\n", 2)[2]  # drop the docstring or the expect header
        for old, new in edits:
            if text.count(old) != 1:
                raise ValueError(f"{path}: {kata}/{name}: edit does not apply exactly once: {old[:60]!r}")
            text = text.replace(old, new, 1)
        found.append(Fixture(kata, kata, name, f"# {comment}\n{text}", *parse_expectation(expect)))
    return found


def misconception_ids(suite: Path) -> list[str]:
    """The ids of the Misconception(...) constants a suite defines (read, not imported)."""
    ids = []
    for node in ast.walk(ast.parse(suite.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Misconception"
                and node.args and isinstance(node.args[0], ast.Constant)):  # fmt: skip
            ids.append(str(node.args[0].value))
    return ids
