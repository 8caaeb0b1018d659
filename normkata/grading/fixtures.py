"""Learner files with a known verdict, used to prove a kata's suite: the project's tests and
`normkata content check --deep` read them from the kata's own folder.

A fixture's first line says what must happen: `# expect: pass`, or `# expect: fail`, optionally
with `diagnosis=ID` (a misconception the report must name) or `message=TEXT` (text some
failing case's message must contain). They live in `katas/<kata>/fixtures/` (ours),
`katas/<kata>/fixtures/realworld/` (styles found in public code, written by us) and as one-edit
changes of a correct file in `katas/<kata>/fixtures/mutants.yaml` (data). The wheel leaves
fixtures out (pyproject.toml): an installed kata has none, and a deep check says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from normkata.errors import InputError
from normkata.paths import katas_dir, solutions_dir

#: A kata's fixtures, beside its suite.
FIXTURES = "fixtures"
MUTANTS = "mutants.yaml"


@dataclass(frozen=True)
class Fixture:
    kata: str
    group: str  # where it came from (`<kata>`, `realworld/<kata>`, `hostile`): part of its id and seed
    name: str
    source: str
    passes: bool
    diagnosis: str | None = None
    message: str | None = None

    @property
    def id(self) -> str:
        return f"{self.group}/{self.name}"


class FixtureError(InputError, ValueError):
    """A kata's fixture or mutant table an author got wrong: one line naming the file, exit 2."""


def fixtures_dir(kata: str, katas: Path | None = None) -> Path:
    return (katas or katas_dir()) / kata / FIXTURES


def fixtures_available(katas: Path | None = None) -> bool:
    """Whether this tree has fixtures at all: a source checkout does, an installed wheel does not."""
    return any((katas or katas_dir()).glob(f"*/{FIXTURES}"))


def parse_expectation(words: str) -> tuple[bool, str | None, str | None]:
    verdict, _, rest = words.partition(" ")
    diagnosis = rest.removeprefix("diagnosis=") if rest.startswith("diagnosis=") else None
    message = rest.removeprefix("message=") if rest.startswith("message=") else None
    return verdict == "pass", diagnosis, message


def from_file(kata: str, group: str, path: Path) -> Fixture:
    source = path.read_text(encoding="utf-8")
    header = source.splitlines()[0] if source else ""
    if not header.startswith("# expect: "):
        raise FixtureError(f"{path}:1: a fixture's first line must say what to expect (# expect: pass|fail ...)")
    return Fixture(kata, group, path.stem, source, *parse_expectation(header.removeprefix("# expect: ")))


def kata_fixtures(kata: str, katas: Path | None = None) -> list[Fixture]:
    """Every fixture of one kata: its files, its real-world styles, and its mutants."""
    folder = fixtures_dir(kata, katas)
    found = [from_file(kata, kata, p) for p in sorted(folder.glob("*.py"))]
    found += [from_file(kata, f"realworld/{kata}", p) for p in sorted((folder / "realworld").glob("*.py"))]
    return found + mutants(kata, folder)


def mutants(kata: str, folder: Path) -> list[Fixture]:
    """The edits of the kata's mutants.yaml applied to the correct file each starts from."""
    path = folder / MUTANTS
    if not path.is_file():
        return []
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if not isinstance(entries, list):
        raise FixtureError(f"{path}: expected a list of mutants")
    return [_mutant(kata, folder, path, entry) for entry in entries]


def _mutant(kata: str, folder: Path, path: Path, entry: Any) -> Fixture:
    if not isinstance(entry, dict) or not {"name", "expect", "what", "from", "edits"} <= set(entry):
        raise FixtureError(f"{path}: each mutant needs name, expect, what, from and edits: {entry!r:.80}")
    name, base = str(entry["name"]), str(entry["from"])
    start = solutions_dir() / f"{kata}.py" if base == "solution" else folder / f"{base}.py"
    text = start.read_text(encoding="utf-8").split("\n", 2)[2]  # drop the docstring or the expect header
    for edit in entry["edits"]:
        old, new = str(edit["old"]), str(edit["new"])
        if text.count(old) != 1:
            raise FixtureError(f"{path}: {kata}/{name}: edit does not apply exactly once: {old[:60]!r}")
        text = text.replace(old, new, 1)
    return Fixture(kata, kata, name, f"# {entry['what']}\n{text}", *parse_expectation(str(entry["expect"])))


def misconception_ids(suite: Path) -> list[str]:
    """The ids of the misconceptions a suite can name: its kata.yaml's (read, the suite not imported)."""
    from normkata.content.katas import read_kata

    return [m.id for m in read_kata(suite.parent.name, suite.parent.parent).misconceptions]
