"""A learner working on katas, in one place (as rustlings' AppState): which kata and which file,
starting one, hints, when the solution opens, the next kata, and what a recorded grade sets
going. `kata`, `hint`, `solution`, `grade` and `watch` keep only options, rendering and prompts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from normkata.actions import Action, argument, spoken
from normkata.errors import InputError
from normkata.i18n import t
from normkata.record.attempts import Hint, KataLog, KataStatus
from normkata.workbench.agents_guide import write_agents_guide

if TYPE_CHECKING:
    from normkata.content.katas import Kata
    from normkata.grading.contract import GradeResult
    from normkata.workbench.due import Note


@dataclass(frozen=True)
class Started:
    file: Path
    written: bool  # False: the learner's file was there already and was kept
    guide: Path | None = None  # AGENTS.md, when it was written now (workbench/agents_guide.py)


@dataclass(frozen=True)
class NamedHint:
    """The hint for the mistake the kata's last grade named first (kata.yaml's, or the shared checks')."""

    misconception: str
    title: str
    text: str

    def heading(self, kata: str, lang: str) -> str:
        return t("hint.named", lang, kata=kata, title=self.title)


@dataclass(frozen=True)
class Passed:
    """`hint` on a kata that has passed (and is not being written again): no hint is taken."""

    kata: str


class Workbench:
    def __init__(self, log: KataLog, workspace: Path, lang: str) -> None:
        self.log, self.workspace, self.lang = log, workspace, lang

    @classmethod
    def open(cls, workspace: Path, lang: str) -> Workbench:
        """On the learner's store, a damaged database reported in `lang`."""
        from normkata.record.store import open_record

        return cls(KataLog(open_record(lang)), workspace, lang)

    # -- which kata, which file ------------------------------------------------------------------

    def kata(self, name: str | None, command: str) -> Kata:
        """NAME, else the kata worked on last; an InputError when there is neither, or when its
        workspace file is a link or a special file (hint and solution: said before anything is counted)."""
        from normkata.workbench import files

        chosen = self._named(name, lambda: self._none_yet(command))
        files.existing(self.file(chosen), self.lang)
        return chosen

    def gradeable(self, name: str | None) -> Kata:
        """As `kata` (for grade and watch), and its optional extras installed (kernel katas need Triton)."""
        kata = self._named(name, lambda: t("grade.no_kata", self.lang, start=self._say("kata", "rmsnorm")))
        if kata.requires and (missing := kata.missing_extras()):
            raise InputError(t("grade.needs_extra", self.lang, kata=kata.id, package=missing[0]))
        return kata

    def _named(self, name: str | None, none_yet: Callable[[], str]) -> Kata:
        from normkata.content.katas import get_kata

        chosen = name or self.log.last_kata()
        if chosen is None:
            raise InputError(none_yet())
        return get_kata(chosen, self.lang)

    def file(self, kata: Kata) -> Path:
        return self.workspace / kata.file

    def learner_file(self, kata: Kata, given: Path | None) -> Path:
        """--file, else the workspace's file; an InputError with advice that fits what was typed
        when it is not there (--file: a path to check and a file nearby; none: the kata to start)."""
        from normkata.grading.source import check_source
        from normkata.workbench import files

        target = given or self.file(kata)
        if given is None and files.existing(target, self.lang):  # a link, dangling or not: one line, exit 2
            return target
        if given is not None and (target.is_symlink() or (target.exists() and not target.is_file())):
            check_source(target)  # --file: refused in the grader's own words, as a submission is
        if given is not None and target.is_file():
            return target
        if given is None:
            raise InputError(self.no_file(target, kata))
        from normkata.ui.names import close_matches

        folder = target.parent if target.parent.is_dir() else Path.cwd()
        try:
            names = [p.name for p in folder.iterdir() if p.suffix == ".py"]
        except OSError:
            names = []
        nearby = [self.file(kata), *(folder / n for n in close_matches(target.name, names, n=1))]
        near = next((p for p in nearby if p.is_file()), None)
        hint = t("grade.no_file.similar", self.lang, near=near) if near else ""
        raise InputError(
            t("grade.no_file.given", self.lang, arg=argument("file"), path=target, cwd=Path.cwd(), hint=hint)
        )

    def no_file(self, target: Path, kata: Kata) -> str:
        """The learner's file of `kata` is not there: start the kata, or name a file."""
        return t("grade.no_file", self.lang, path=target, start=self._say("kata", kata.id), arg=argument("file"))

    def _none_yet(self, command: str) -> str:
        named, start = self._say(command, "rmsnorm"), self._say("kata", "rmsnorm")
        return t("kata.none_yet", self.lang, named=named, start=start)

    def _say(self, action: str, kata: str) -> str:
        return spoken(Action.of(action, kata=kata), self.lang)

    # -- working on it -----------------------------------------------------------------------------

    def start(self, kata: Kata, force: bool = False) -> Started:
        """Write the starter (never over the learner's file without `force`), and count it as started."""
        from normkata.workbench import files

        target = self.file(kata)
        written = force or not files.existing(target, self.lang)  # a link is refused, never written through
        if written:
            self.workspace.mkdir(parents=True, exist_ok=True)
            files.write(target, kata.starter.read_text(encoding="utf-8"), self.lang, replace=force)
        guide = write_agents_guide(self.workspace, self.lang) if written else None
        self.log.event(kata.id, "started", str(target))
        return Started(target, written, guide)

    def statuses(self, *, strict: bool = False) -> list[tuple[Kata, KataStatus]]:
        """Every kata in the catalog's order with its status; `strict`: a broken kata folder is an InputError."""
        from normkata.content.katas import load_katas

        katas, issues = load_katas()
        if issues and strict:
            raise InputError(str(issues[0]))
        return [(kata, self.log.status(kata.id)) for kata in katas]

    def next_kata(self, kata: Kata) -> tuple[Kata, Started | None]:
        """The kata after `kata` in the catalog's order (the first after the last), its starter
        written when the learner has no file for it yet (None: the file was there)."""
        from normkata.content.katas import load_katas

        katas = load_katas()[0]
        ids = [k.id for k in katas]
        following = katas[(ids.index(kata.id) + 1) % len(katas)] if kata.id in ids else katas[0]
        from normkata.workbench import files

        return following, None if files.existing(self.file(following), self.lang) else self.start(following)

    def take_hint(self, kata: Kata) -> Hint:
        return self.log.take_hint(kata, self.lang)

    def next_hint(self, kata: Kata) -> NamedHint | Hint | Passed:
        """What `hint` and watch's `h` give: nothing once the kata has passed; the hint for the
        mistake its last grade named first, once after that grade; else the next levelled hint."""
        if self.solution_open(kata):
            return Passed(kata.id)
        named = self.named_hint(kata)
        if named is not None:
            self.log.event(kata.id, "hint", f"named:{named.misconception}")
            return named
        return self.take_hint(kata)

    def named_hint(self, kata: Kata) -> NamedHint | None:
        """The first mistake the kata's last grade named, when its hint was not shown since that grade."""
        from normkata.content.suite_names import suite_names

        attempts = self.log.attempts(kata.id)
        last = attempts[-1] if attempts else None
        if last is None or last.passed or not last.misconceptions:
            return None
        first = last.misconceptions[0]
        if self.log.named_hint_shown(kata.id, first.id, last.at):
            return None
        names = suite_names(kata.id)
        text = names.misconception_hint(first.id, self.lang)
        if text is None:  # a mistake the suite no longer words: the levelled hints remain
            return None
        return NamedHint(first.id, first.shown(kata.id, self.lang), text)

    def hints(
        self, kata: Kata, *, every: bool = False, level: int | None = None
    ) -> tuple[list[Hint | NamedHint] | Passed, bool]:
        """`every`: each hint taken so far (at least the first); `level`: that one, the levels up
        to it counted as taken; neither: `next_hint`. True with them when the next levelled one
        was asked for and every hint had been taken already."""
        texts = [hint.in_(self.lang) for hint in kata.hints]
        if every and level is not None:
            raise InputError(t("hint.all_or_level", self.lang))
        if level is not None and not 1 <= level <= len(texts):
            raise InputError(t("hint.level_range", self.lang, kata=kata.id, n=len(texts)))
        taken = self.log.hints_taken(kata.id)
        if not every and level is None:
            found = self.next_hint(kata)
            if isinstance(found, Passed):
                return found, False
            return [found], isinstance(found, Hint) and taken >= len(texts)
        levels = list(range(1, max(taken, 1) + 1)) if every else [level or 1]
        for new in range(taken + 1, max(levels) + 1):  # each hint is counted once, when first shown
            self.log.event(kata.id, "hint", str(new))
        return [Hint(n, len(texts), texts[n - 1]) for n in levels], False

    # -- the solution ------------------------------------------------------------------------------

    def passed(self, kata: Kata) -> bool:
        return self.log.status(kata.id).status == "passed"

    def solution_open(self, kata: Kata) -> bool:
        """The one rule, for `solution` and watch's `s`: open once the kata has passed a grade run on
        this machine, unless it is being written again (a review) and has not passed here in this
        round; closed, showing it is giving up. Attempts carried in by `progress import` never open it."""
        from normkata.workbench.due import passed_here

        return passed_here(self.log.store, kata.id)

    def give_up(self, kata: Kata) -> None:
        self.log.event(kata.id, "gave_up")

    # -- grades ------------------------------------------------------------------------------------

    def record(self, result: GradeResult, device: str) -> list[Note]:
        """Keep a grade of the whole suite; the lines to show about what it set going."""
        from normkata.workbench.due import after_attempt

        self.log.attempt(result, device)
        return after_attempt(self.log.store, result, self.lang)
