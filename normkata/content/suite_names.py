"""What a kata's hidden suite calls its cases and misconceptions, in either language, read from
the YAML that titles them (normkata.content.names), never from the suite (it imports torch).

A case's id is its pytest name without `test_` (`forward[2x5x8-cpu]`); the grader shows it as
its base's title and the same parameters (`forward [2x5x8-cpu]`, `前向 [2x5x8-cpu]`). The
grader's own cases (the file would not import, a rule of the kata) have fixed ids. A grade
carries each case's id beside its title (`CaseResult.id`); records keep ids, and screens ask here
for the words of the moment.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from normkata.content.misconception import Misconception
from normkata.content.names import load_shared, shared_path
from normkata.content.reading import file_version
from normkata.i18n.text import Text


@dataclass(frozen=True)
class SuiteNames:
    kata: str
    cases: dict[str, Text]  # case base -> title: the shared names and the kata's own
    grader_cases: dict[str, Text]  # the grader's own cases, by id
    misconceptions: dict[str, Misconception]  # the shared ones and the kata's own, by id

    def titled(self, case_id: str) -> bool:
        """Whether the case (`forward[2x5x8-cpu]`) has a title: a suite's every case must."""
        return case_id.partition("[")[0] in self.cases

    def case(self, case_id: str, lang: str) -> str:
        """How the grader shows a case: `forward [2x5x8-cpu]`, or its Chinese title and the same
        parameters. An id no table knows is shown as it is."""
        if case_id in self.grader_cases:
            return self.grader_cases[case_id].in_(lang)
        base, bracket, params = case_id.partition("[")
        if base not in self.cases:
            return case_id
        return self.cases[base].in_(lang) + (f" [{params}" if bracket else "")

    def case_id(self, name: str) -> str:
        """The id of a case as a grade kept before case ids named it, in either language; the name
        itself when neither language knows it (a suite that changed since). Only records from
        before ids ask (m010_case_ids, an old progress file): a grade carries `CaseResult.id`."""
        for known, text in self.grader_cases.items():
            if name in (text.en, text.zh):
                return known
        title, bracket, params = name.partition(" [")
        base = next((b for b, text in self.cases.items() if title in (text.en, text.zh)), "")
        if not base:
            return name
        return base + (f"[{params}" if bracket else "")

    def misconception(self, misconception_id: str, lang: str) -> str | None:
        """Its title in `lang`; None for an id neither kata.yaml nor the shared file defines."""
        found = self.misconceptions.get(misconception_id)
        return found.title.in_(lang) if found else None

    def misconception_hint(self, misconception_id: str, lang: str) -> str | None:
        """Its hint in `lang` (what `grade` prints under it); None for an id no one defines."""
        found = self.misconceptions.get(misconception_id)
        return found.hint.in_(lang) if found else None


def cases_by_id(kata_id: str, cases: str) -> str:
    """A record's `cases` as kept before ids (JSON {case name: status}, in the grade's language)
    keyed by id instead; text that is not such JSON comes back as it was."""
    try:
        named = json.loads(cases)
    except (TypeError, ValueError):
        return cases
    if not isinstance(named, dict):
        return cases
    names = suite_names(kata_id)
    return json.dumps({names.case_id(str(name)): status for name, status in named.items()}, ensure_ascii=False)


def suite_names(kata_id: str) -> SuiteNames:
    """The names of kata `kata_id`'s suite. A kata the catalog lacks (or cannot read) has no case
    titles of its own nor the shared ones: its attempts keep the names they stored."""
    from normkata.paths import katas_dir

    meta = katas_dir() / kata_id / "kata.yaml"
    return _read(kata_id, meta, file_version(meta), file_version(shared_path()))


@lru_cache(maxsize=32)
def _read(kata_id: str, meta: Path, _meta_version: tuple[int, ...], _shared_version: tuple[int, ...]) -> SuiteNames:
    """Read once per version of kata.yaml and of the shared file: every grade needs these names."""
    from normkata.content.katas import read_kata
    from normkata.errors import InputError

    shared, _issues = load_shared()
    try:
        kata = read_kata(kata_id, meta.parent.parent)
    except (InputError, OSError):  # no such kata (any more), or a kata.yaml that does not read
        return SuiteNames(kata_id, {}, shared.grader_cases, dict(shared.misconceptions))
    own = {m.id: m for m in kata.misconceptions}
    return SuiteNames(kata_id, {**shared.cases, **kata.cases}, shared.grader_cases, {**shared.misconceptions, **own})
