"""What each magic does, without IPython: the learner's loop (normkata.loop.learner), the same
calls every door makes, shown as a `Page` (text/html and text/plain) in the notebook's words.

A `%%kata` cell is written to the workspace's file for its kata (normkata.notebook.cells) and
graded there by the loop's warm grading service, in the confined worker `watch` and the MCP
server use: the learner's code never runs in the kernel. The workspace and the language are read
at each call, as each command reads them: `%env NORMKATA_WORKSPACE=...` between cells is followed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from normkata.actions import Action, speaking, spoken
from normkata.errors import InputError
from normkata.i18n import t
from normkata.notebook.page import Page
from normkata.notebook.vocabulary import MAGICS, NOTEBOOK_WORDS, magic_call

if TYPE_CHECKING:
    from normkata.loop.learner import GradeFunction, Kept, Learner
    from normkata.notebook.cells import Saved

#: Where a magic says something before its page is ready (the first grade's warming up).
Say = Callable[[str], None]


@dataclass(frozen=True)
class Graded:
    """A `%%kata` cell's grade as the loop kept it, where the cell was saved, and what to show."""

    kept: Kept
    saved: Saved
    page: Page


class Notebook:
    """The loop for one kernel: one warm grading service, shared by every cell and language."""

    def __init__(self, grade: GradeFunction | None = None) -> None:
        """`grade`: how files are graded (tests hand in their session's service); by default a
        warm service of the loop's own, started at the first `%%kata` cell."""
        self._grade = grade
        self._base: Learner | None = None
        self._warm = False
        self._written: dict[tuple[Path, str], str] = {}  # (workspace, kata) -> what a cell last wrote

    def learner(self, lang: str | None = None) -> Learner:
        """The loop over the workspace of now, in `lang` (--lang), else the learner's language."""
        from normkata.loop.learner import Learner
        from normkata.paths import workspace_dir

        workspace, chosen = workspace_dir(None), _lang(lang)
        if self._base is None:
            self._base = Learner(workspace, chosen, self._grade, warm=True)
        return self._base.sharing(workspace, chosen)

    # -- katas -------------------------------------------------------------------------------------

    def grade_cell(
        self,
        name: str,
        cell: str,
        *,
        seed: int | None = None,
        select: tuple[str, ...] = (),
        every: bool = False,
        lang: str | None = None,
        say: Say = print,
    ) -> Graded:
        """`%%kata NAME`: the cell becomes the workspace's file for the kata, graded and kept as
        `grade` keeps it; its page is `grade`'s report (`every`: `--all`), the notes the grade
        set going and the next step. `say`: a line before the first grade, which starts the service."""
        from normkata.notebook.cells import cell_text, save_cell

        learner = self.learner(lang)
        with speaking(NOTEBOOK_WORDS):
            kata = learner.kata(name)
            key = (learner.workspace, kata.id)
            saved = save_cell(learner.workspace, kata, cell, learner.lang, last_written=self._written.get(key))
            self._written[key] = cell_text(cell)
            if not self._warm:
                say(t("notebook.warming", learner.lang))
                assert self._base is not None
                self._base.warm_up()
                self._warm = True
            try:
                kept = learner.grade(kata.id, seed=seed, select=select)
            except KeyboardInterrupt:  # the kernel interrupted: the reply on its way would answer
                self.close()  # the next cell's request, so the next cell starts a fresh service
                raise
            return Graded(kept, saved, _grade_page(kept, saved, learner.lang, every=every))

    def kata(self, name: str | None, lang: str | None = None) -> tuple[Page, str | None]:
        """`%kata NAME`: the instructions, the starter written (never over the learner's file) and
        the text of a new cell that grades it; `%kata`: every kata and where the learner stands."""
        from rich.markdown import Markdown
        from rich.markup import escape

        learner = self.learner(lang)
        lang = learner.lang
        page = Page()
        if name is None:
            _kata_table(page, learner)
            return page, None
        with speaking(NOTEBOOK_WORDS):
            shown = learner.start(name)
        started = shown.started
        assert started is not None
        page.print(Markdown(shown.text))
        if started.written:
            page.line(f"[kata.pass]{escape(t('kata.written', lang, path=started.file))}[/]")
            if started.guide:
                page.line(f"[muted]{escape(t('agent.agents_md.written', lang, path=started.guide))}[/]")
        else:
            page.line(f"[warn]{escape(t('notebook.kata.kept', lang, path=started.file))}[/]")
        grade = magic_call(MAGICS["grade"], shown.kata.id, lang)
        page.line(f"[next]{escape(t('notebook.kata.cell', lang, path=started.file, grade=f'`{grade}`'))}[/]")
        return page, f"{grade}\n{learner.learner_source(shown.kata.id)}"

    # -- hints and the solution --------------------------------------------------------------------

    def hint(self, name: str | None, lang: str | None = None) -> Page:
        """`%kata_hint [NAME]`: what `normkata hint` gives (the named mistake's hint first), counted as taken."""
        from rich.markup import escape

        from normkata.workbench.workflow import NamedHint, Passed

        learner = self.learner(lang)
        lang = learner.lang
        page = Page()
        with speaking(NOTEBOOK_WORDS):
            chosen, shown, none_left = learner.hint(name)
            if isinstance(shown, Passed):
                solution = spoken(Action.of("solution", kata=chosen.id), lang)
                page.line(f"[kata.pass]{escape(t('hint.passed', lang, kata=chosen.id, solution=solution))}[/]")
                return page
            for taken in shown:
                page.line(f"[heading]{escape(taken.heading(chosen.id, lang))}[/]")
                page.line(escape(taken.text))
                if isinstance(taken, NamedHint):
                    call = spoken(Action.of("hint", kata=chosen.id), lang)
                    page.line(f"[muted]{escape(t('hint.named.more', lang, call=call))}[/]")
            if none_left:
                solution = spoken(Action.of("solution", kata=chosen.id), lang)
                page.line(f"[muted]{escape(t('notebook.hint.none_left', lang, solution=solution))}[/]")
        return page

    def solution(self, name: str | None, *, give_up: bool = False, lang: str | None = None) -> Page:
        """`%kata_solution [NAME]`: the reference once the kata passed; before, refused unless
        `--give-up` (recorded as giving up), as every door refuses it."""
        from rich.markup import escape
        from rich.syntax import Syntax

        learner = self.learner(lang)
        lang = learner.lang
        with speaking(NOTEBOOK_WORDS), learner.bench() as bench:
            chosen = bench.kata(name, "solution")
        if not learner.solution_open(chosen.id) and not give_up:
            again = f"`{magic_call(MAGICS['solution'], f'{chosen.id} --give-up', lang)}`"
            raise InputError(t("notebook.solution.closed", lang, kata=chosen.id, give_up=again))
        shown = learner.solution(chosen.id, give_up=give_up)
        page = Page()
        if shown.gave_up:
            page.line(f"[warn]{escape(t('notebook.solution.gave_up', lang, kata=chosen.id))}[/]")
        title = t("solution.heading", lang, kata=chosen.id, title=chosen.title.in_(lang))
        page.console.rule(f"[heading]{escape(title)}[/]")
        page.print(Syntax(shown.reference, "python", line_numbers=True))
        if shown.diff is not None:
            page.line(f"[heading]{escape(t('solution.diff', lang, path=shown.mine))}[/]")
            page.print(Syntax(shown.diff, "diff") if shown.diff else t("solution.same", lang))
        return page

    # -- where the learner stands and what comes next ----------------------------------------------

    def next_step(self, lang: str | None = None) -> Page:
        """`%normkata next`: the one most useful next step, in the notebook's words, and why."""
        from rich.markup import escape

        learner = self.learner(lang)
        step = learner.next_step()
        page = Page()
        with speaking(NOTEBOOK_WORDS):
            cmd = spoken(step.action, learner.lang)
        page.line(f"[next]{escape(t('dash.next', learner.lang, cmd=cmd, why=step.why(learner.lang)))}[/]")
        return page

    def plan(self, minutes: int | None = None, lang: str | None = None) -> Page:
        """`%normkata plan [--minutes N]`: `plan`'s steps (each day's, toward an interview date),
        each in the notebook's words."""
        from rich.markup import escape

        from normkata.advice.advisor import MOCK_MINUTES

        learner = self.learner(lang)
        lang = learner.lang
        made = learner.plan(minutes)
        page = Page()
        days = made.get("days")
        if isinstance(days, list):
            for day in days:
                heading = t("notebook.plan.day", lang, date=day["date"], planned=day["planned"], minutes=day["minutes"])
                page.line(f"[heading]{escape(heading)}[/]")
                _steps_table(page, day["steps"], lang)
            return page
        steps = made["steps"]
        assert isinstance(steps, list)
        if not steps:
            page.line(escape(t("plan.nothing", lang, minutes=minutes or MOCK_MINUTES)))
            return page
        page.line(f"[heading]{escape(t('plan.title', lang, minutes=minutes or MOCK_MINUTES))}[/]")
        _steps_table(page, steps, lang)
        used = sum(int(step["minutes"]) for step in steps)
        page.line(escape(t("plan.total", lang, used=used, minutes=minutes or MOCK_MINUTES)))
        return page

    def standing(self, lang: str | None = None) -> Page:
        """`%normkata standing`: mastery per topic, what is due, katas passed, the next step."""
        from rich.markup import escape
        from rich.table import Table

        learner = self.learner(lang)
        lang = learner.lang
        bank, report = learner.standing()
        page = Page()
        table = Table(title=t("dash.title", lang), title_style="heading")
        table.add_column(t("dash.topic", lang))
        table.add_column(t("dash.mastery", lang), justify="right")
        for progress in report.topics:
            table.add_row(escape(bank.topic_title(progress.topic, lang)), f"{progress.mastery:.0%}")
        page.print(table)
        passed = sum(k.status == "passed" for k in report.katas)
        page.line(escape(t("dash.due", lang, n=report.due)))
        page.line(escape(t("dash.katas.passed", lang, passed=passed, total=len(report.katas))))
        with speaking(NOTEBOOK_WORDS):
            cmd = spoken(report.next.action, lang)
        page.line(f"[next]{escape(t('dash.next', lang, cmd=cmd, why=report.next.why(lang)))}[/]")
        return page

    # -- the end -----------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the grading service (the kernel exits, or the extension is unloaded)."""
        base, self._base = self._base, None
        self._warm = False
        if base is not None:
            base.close()


def _grade_page(kept: Kept, saved: Saved, lang: str, *, every: bool) -> Page:
    from rich.markup import escape

    from normkata.grading import report

    page = Page()
    if saved.kept is not None:
        page.line(f"[warn]{escape(t('notebook.kept', lang, path=saved.file, kept=saved.kept))}[/]")
    report.render(page.console, kept.result, every_failure=every)
    for note in kept.notes:  # the kata's next review; the items that teach a named mistake
        page.line(f"[{note.style}]{escape(note.words(lang))}[/]")
    if kept.next is not None:
        step = kept.next
        page.line(f"[next]{escape(t('dash.next', lang, cmd=spoken(step.action, lang), why=step.why(lang)))}[/]")
    if not kept.recorded:
        page.line(f"[muted]{escape(t('notebook.not_recorded', lang))}[/]")
    if kept.warnings:  # rows of the progress database a reader could not use
        from normkata.grading.text import escape_name

        first = escape_name(kept.warnings[0])[:300]
        page.line(f"[warn]{escape(t('store.skipped', lang, n=len(kept.warnings), first=first))}[/]")
    page.line(f"[muted]{escape(t('notebook.saved', lang, path=saved.file))}[/]")
    return page


def _lang(option: str | None) -> str:
    """--lang, checked strictly; else NORMKATA_LANG or the locale, English when they name no known language."""
    from normkata.i18n import resolve_lang

    if option is not None:
        return resolve_lang(option)
    try:
        return resolve_lang(None)
    except InputError:
        return "en"


def _kata_table(page: Page, learner: Learner) -> None:
    from rich.markup import escape
    from rich.table import Table

    lang = learner.lang
    table = Table(title=t("kata.list.title", lang), title_style="heading")
    for key in ("kata.col.kata", "kata.col.title", "kata.col.level", "kata.col.time", "kata.col.status"):
        table.add_column(t(key, lang), no_wrap=key == "kata.col.kata")
    for kata, status in learner.katas():
        shown = t(f"kata.status.{status.status}", lang)
        if kata.requires and kata.missing_extras():
            shown += f" ({t('kata.needs_extra', lang, extra=', '.join(kata.requires))})"
        table.add_row(kata.id, escape(kata.title.in_(lang)), kata.difficulty, f"{kata.minutes} min", escape(shown))
    page.print(table)


def _steps_table(page: Page, steps: list[dict[str, object]], lang: str) -> None:
    """A plan's steps (`plan --json`'s objects): what to do in the notebook's words, minutes, why."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(show_edge=False)
    table.add_column("#", justify="right")
    table.add_column(t("plan.col.command", lang), style="next", no_wrap=True)  # typed as shown
    table.add_column(t("plan.col.minutes", lang), justify="right")
    table.add_column(t("plan.col.why", lang))
    with speaking(NOTEBOOK_WORDS):
        for number, step in enumerate(steps, start=1):
            arguments = step["arguments"]
            assert isinstance(arguments, dict)
            given = {k: tuple(v) if isinstance(v, list) else v for k, v in arguments.items()}
            action = Action.of(str(step["action"]), **given)
            table.add_row(str(number), escape(spoken(action, lang)), str(step["minutes"]), escape(str(step["why"])))
    page.print(table)
