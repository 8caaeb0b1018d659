"""The kata catalog: katas/<id>/kata.yaml plus instructions, starter, hints and hidden suite."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from normkata.content import names
from normkata.content.misconception import Misconception
from normkata.content.model import ContentIssue, Message
from normkata.content.reading import file_version
from normkata.content.yamlnodes import LineDict, LineList, YamlSyntaxError, read_yaml_file
from normkata.errors import InputError
from normkata.extras import OPTIONAL_EXTRAS
from normkata.i18n.text import Text
from normkata.paths import katas_dir, solutions_dir

KATA_FORMAT_VERSION = 1
_KEYS = {
    "format_version",
    "id",
    "order",
    "title",
    "difficulty",
    "minutes",
    "topics",
    "file",
    "classes",
    "forbidden",
    "hints",
}
#: Keys a kata may leave out.
_OPTIONAL = {"requires", "misconceptions", "cases", "home", "core"}
#: What each name in `requires` needs importable, and the extra that installs it.
#: extra -> (the module that proves it installed, the requirement that installs it)
EXTRAS = {name: (extra.module, extra.package) for name, extra in OPTIONAL_EXTRAS.items()}
_FILES = ("instructions.en.md", "instructions.zh.md", "starter.py", "suite.py")


@dataclass(frozen=True)
class Kata:
    id: str
    order: int
    title: Text
    difficulty: str
    minutes: int
    topics: tuple[str, ...]
    file: str  # the learner's file name in the workspace
    classes: tuple[str, ...]
    #: torch function names the learner's code must not reach, however it gets there (the
    #: worker watches every torch call with a TorchFunctionMode): `rms_norm`, `layer_norm`, ...
    forbidden: tuple[str, ...]
    #: The three levelled hints, each in both languages.
    hints: tuple[Text, ...]
    folder: Path
    #: Optional extras the kata needs (`triton`: kernel katas), each a key of EXTRAS.
    requires: tuple[str, ...] = ()
    #: The mistakes the suite can name (by id), worded for the learner.
    misconceptions: tuple[Misconception, ...] = ()
    #: The suite's own cases: base name (`all_zero_rows_stay_finite`) -> title; the names several
    #: suites share are katas/shared.yaml's.
    cases: dict[str, Text] = field(default_factory=dict, hash=False)
    #: The topic the kata is studied with; None: the last of its topics in the order of study.
    home: str | None = None
    #: A core kata's place in the order interviewers are likeliest to ask for it (1 first); None:
    #: not core. A plan toward an interview meets the core katas first, in this order.
    core: int | None = None
    #: kata.yaml's lines of `home` and of each misconception (`misconceptions.<id>`): later checks name them.
    lines: dict[str, int] = field(default_factory=dict, hash=False, compare=False)

    def missing_extras(self) -> list[str]:
        """The extras this kata needs that are not installed (`pip install "normkata[triton]"`)."""
        return [OPTIONAL_EXTRAS[name].package for name in self.requires if not OPTIONAL_EXTRAS[name].installed()]

    @property
    def starter(self) -> Path:
        return self.folder / "starter.py"

    @property
    def suite(self) -> Path:
        return self.folder / "suite.py"

    @property
    def solution(self) -> Path:
        return solutions_dir() / f"{self.id}.py"

    def instructions(self, lang: str) -> str:
        return (self.folder / f"instructions.{lang}.md").read_text(encoding="utf-8")


def load_katas(root: Path | None = None) -> tuple[list[Kata], list[ContentIssue]]:
    root = root or katas_dir()
    katas, issues = [], []
    for meta in sorted(root.glob("*/kata.yaml")):
        try:
            versions = (file_version(meta.parent), file_version(solutions_dir()), file_version(names.shared_path()))
            katas.append(_load_cached(meta, file_version(meta), *versions))
        except _KataIssue as issue:
            issues.append(issue.issue)
    return _misconceptions_once(sorted(katas, key=lambda k: k.order), issues)


def _misconceptions_once(katas: list[Kata], issues: list[ContentIssue]) -> tuple[list[Kata], list[ContentIssue]]:
    """A misconception id names one mistake everywhere (records and links keep ids): a kata that
    defines one another kata defines is an issue, and left out."""
    owner: dict[str, Kata] = {}
    kept = []
    for kata in sorted(katas, key=lambda k: k.id):
        twice = [m.id for m in kata.misconceptions if m.id in owner]
        if twice:
            key, first = f"misconceptions.{twice[0]}", owner[twice[0]]
            other = f"{first.folder / 'kata.yaml'}:{first.lines.get(key, 1)}"
            said = Message.of("check.names.misconception_elsewhere", id=repr(twice[0]), other=other)
            issues.append(ContentIssue(str(kata.folder / "kata.yaml"), kata.lines.get(key, 1), "misconceptions", said))
            continue
        owner |= dict.fromkeys((m.id for m in kata.misconceptions), kata)
        kept.append(kata)
    return sorted(kept, key=lambda k: k.order), issues


@functools.lru_cache(maxsize=256)
def _load_cached(
    meta: Path, version: tuple[int, ...], folder: tuple[int, ...], solutions: tuple[int, ...], shared: tuple[int, ...]
) -> Kata:
    """`_load_one`, once per version of the file, of its folder (a file added or removed), of the
    solutions folder and of katas/shared.yaml: a warm grader looks its kata up on every grade."""
    return _load_one(meta)


class _KataIssue(Exception):
    def __init__(self, file: Path, line: int, field: str, said: Message) -> None:
        self.issue = ContentIssue(str(file), line, field, said)


def _load_one(meta: Path) -> Kata:
    try:
        data = read_yaml_file(meta)
    except YamlSyntaxError as exc:
        raise _KataIssue(meta, exc.line, "", exc.said) from None
    if not isinstance(data, LineDict):
        raise _KataIssue(meta, 1, "", Message("check.mapping"))

    def fail(key: str, message: str, **fields: Any) -> _KataIssue:
        """The problem `message` (a `check.*` key of i18n/catalogs/content.py) at `key`."""
        return _KataIssue(meta, data.key_lines.get(key, data.line), key, Message(message, fields))

    def fail_at(line: int, where: str, message: str, **fields: Any) -> _KataIssue:
        return _KataIssue(meta, line, where, Message(message, fields))

    for key in data:
        if key not in _KEYS | _OPTIONAL:
            raise fail(key, "check.unknown_key.bare")
    for key in _KEYS:
        if key not in data:
            raise fail(key, "check.missing_key")
    if data["format_version"] != KATA_FORMAT_VERSION:
        raise fail("format_version", "check.version.bare", want=KATA_FORMAT_VERSION)
    if data["id"] != meta.parent.name:
        raise fail("id", "check.kata.folder", name=repr(meta.parent.name))
    for name in _FILES:
        if not (meta.parent / name).is_file():
            raise _KataIssue(meta.parent / name, 1, "", Message("check.kata.missing_file"))
    if not (solutions_dir() / f"{data['id']}.py").is_file():
        raise fail("id", "check.kata.no_solution", path=f"solutions/{data['id']}.py")
    title = _text(data, "title", fail)
    hints = data["hints"]
    if not isinstance(hints, LineDict) or set(hints) != {"en", "zh"}:
        raise fail("hints", "check.kata.hint_lists")
    if not all(isinstance(hints[lang], LineList) and len(hints[lang]) == 3 for lang in ("en", "zh")):
        raise fail("hints", "check.kata.hint_levels")
    for key in ("topics", "classes", "forbidden", *(["requires"] if "requires" in data else [])):
        if not isinstance(data[key], list) or not all(isinstance(v, str) for v in data[key]):
            raise fail(key, "check.text_list")
    for name in data.get("requires", ()):
        if name not in EXTRAS:
            raise fail("requires", "check.kata.unknown_extra", name=repr(name), known=", ".join(EXTRAS))
    misconceptions, lines = _misconceptions(data, fail_at)
    cases = _cases(data, fail_at)
    home = data.get("home")
    if "home" in data and (not isinstance(home, str) or home not in data["topics"]):
        raise fail("home", "check.kata.home", topics=", ".join(data["topics"]))
    core = data.get("core")
    if "core" in data and (not isinstance(core, int) or isinstance(core, bool) or not 1 <= core <= 99):
        raise fail("core", "check.kata.core")
    return Kata(
        id=data["id"],
        order=int(data["order"]),
        title=title,
        difficulty=str(data["difficulty"]),
        minutes=int(data["minutes"]),
        topics=tuple(data["topics"]),
        file=str(data["file"]),
        classes=tuple(data["classes"]),
        forbidden=tuple(data["forbidden"]),
        hints=tuple(Text(en, zh) for en, zh in zip(hints["en"], hints["zh"], strict=True)),
        folder=meta.parent,
        requires=tuple(data.get("requires", ())),
        misconceptions=misconceptions,
        cases=cases,
        home=home,
        core=core,
        lines={**lines, "home": data.key_lines.get("home", data.line)},
    )


def _misconceptions(data: LineDict, fail: names.Fail) -> tuple[tuple[Misconception, ...], dict[str, int]]:
    """The kata's misconceptions and the line of each; an id the shared file defines is an error."""
    if "misconceptions" not in data:
        return (), {}
    entries = data["misconceptions"]
    found = names.misconceptions(entries, data.key_lines["misconceptions"], "misconceptions", fail)
    lines = {f"misconceptions.{m.id}": entries.item_lines[i] for i, m in enumerate(found)}
    shared, _issues = names.load_shared()
    for index, mistake in enumerate(found):
        if mistake.id in shared.misconceptions:
            raise fail(
                entries.item_lines[index],
                f"misconceptions[{index}].id",
                "check.names.misconception_shared",
                id=repr(mistake.id),
                at=shared.lines.get(f"misconceptions.{mistake.id}", 1),
            )
    return found, lines


def _cases(data: LineDict, fail: names.Fail) -> dict[str, Text]:
    """The suite's own case titles; a name the shared file gives, or a title another case has, is an error."""
    if "cases" not in data:
        return {}
    table = data["cases"]
    own = names.case_titles(table, data.key_lines["cases"], "cases", fail)
    shared, _issues = names.load_shared()
    for base in own:
        if base in shared.cases:
            raise fail(
                table.key_lines[base],
                f"cases.{base}",
                "check.names.case_shared",
                at=shared.lines.get(f"cases.{base}", 1),
            )
    return own


def _text(data: LineDict, key: str, fail: Any) -> Text:
    value = data[key]
    if not isinstance(value, LineDict) or set(value) != {"en", "zh"}:
        raise fail(key, "check.kata.texts")
    return Text(str(value["en"]), str(value["zh"]))


def read_kata(kata_id: str, root: Path | None = None) -> Kata:
    """One kata by its exact id, read without the others (a suite reads its own kata.yaml)."""
    try:
        return _load_one((root or katas_dir()) / kata_id / "kata.yaml")
    except _KataIssue as issue:
        raise InputError(str(issue.issue)) from None


def get_kata(name: str, lang: str = "en") -> Kata:
    """The kata `name` (any case), or an InputError in `lang` that suggests close names."""
    from normkata.ui import names

    katas, issues = load_katas()
    found = names.find(name, [k.id for k in katas])
    for kata in katas:
        if kata.id == found:
            return kata
    # A problem in another kata's folder is `content check`'s to report, not this kata's.
    own = [issue for issue in issues if Path(issue.file).parent.name == name]
    if own:
        raise InputError(str(own[0]))
    from normkata.i18n import t

    ids = [k.id for k in katas]
    hint = names.did_you_mean(name, ids, lang)
    raise InputError(t("kata.unknown", lang, name=name, hint=hint, known=", ".join(ids)))
