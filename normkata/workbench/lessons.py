"""Misconceptions teach: each one a kata suite names links to the bank items that explain it.

The links live in `katas/misconceptions.yaml` (content, not code: an author adds a line there,
not a branch here). When a grade names a misconception, its items fall due at once; until one
of them has been reviewed since, `next` and `plan` point at the first with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from normkata.content.links import links_path, load_links
from normkata.content.model import ContentIssue, Message
from normkata.grading.text import escape_name
from normkata.i18n import Text
from normkata.record.attempts import Diagnosed, KataLog
from normkata.record.store import Store, iso, utcnow
from normkata.record.values import BadValue, json_text, shown, skip

if TYPE_CHECKING:
    from normkata.actions import Action
    from normkata.content.bank import Bank
    from normkata.content.katas import Kata

#: "Misconceptions met this week" on the dashboard.
WEEK = timedelta(days=7)


def suite_misconceptions(katas: list[Kata]) -> dict[str, str]:
    """Every misconception id the katas' suites define -> its kata (read without importing a suite)."""
    from normkata.grading.fixtures import misconception_ids

    return {mid: kata.id for kata in katas for mid in misconception_ids(kata.suite)}


def check_links(bank: Bank, katas: list[Kata], path: Path | None = None) -> tuple[list[ContentIssue], list[str]]:
    """Errors (a link to no misconception, or to no bank item), and the misconceptions no item teaches."""
    path = path or links_path()
    links, issues = load_links(path)
    defined = suite_misconceptions(katas)
    items = {q.id for q in bank.questions} | {c.id for c in bank.cards}
    lines = _key_lines(path)
    for misconception, linked in links.items():
        line = lines.get(misconception, 1)
        if misconception not in defined:
            issues.append(ContentIssue(str(path), line, f"links.{misconception}", Message("check.links.no_suite")))
        for item in linked:
            if item not in items:
                said = Message.of("check.links.no_item", item=repr(item))
                issues.append(ContentIssue(str(path), line, f"links.{misconception}", said))
    unlinked = sorted(m for m in defined if not links.get(m))
    return issues, unlinked


def _key_lines(path: Path) -> dict[str, int]:
    from normkata.content.yamlnodes import LineDict, YamlSyntaxError, read_yaml_file

    try:
        data = read_yaml_file(path)
    except (OSError, YamlSyntaxError):
        return {}
    table = data.get("links") if isinstance(data, LineDict) else None
    return dict(table.key_lines) if isinstance(table, LineDict) else {}


def make_due(store: Store, bank: Bank, item_ids: list[str], now: datetime | None = None) -> list[str]:
    """Bring the items forward to `now` (a never-reviewed one gets a new FSRS card due now); the ids moved."""
    from fsrs import Card

    moment = iso(now or utcnow())
    moved: list[tuple[str, str, str]] = []  # (item id, kind, topic)
    for item_id in item_ids:
        question, card = bank.question(item_id), bank.card(item_id)
        found = question or card
        if found is not None:
            moved.append((item_id, "question" if question else "card", found.topic))
    store.bring_forward(moved, moment, lambda: Card(due=datetime.fromisoformat(moment)).to_json())
    return [item_id for item_id, _kind, _topic in moved]


@dataclass(frozen=True)
class Lesson:
    """A misconception a grade named, and the linked items not reviewed since."""

    misconception: str
    title: Text  # from the suite, in both languages (as the grade said it, where the suite no longer knows it)
    kata: str
    met_at: str  # ISO: the last grade that named it
    items: tuple[str, ...]  # every linked item, in the link table's order
    unreviewed: tuple[str, ...]  # those without a review since `met_at`
    passed_since: bool = False  # the kata passed a grade after the mistake was last made

    @property
    def why_key(self) -> str:
        """How a step that teaches it says why: a mistake still in the kata, or one it has left behind."""
        return "advice.lesson.passed" if self.passed_since else "advice.lesson"

    @property
    def reviewed(self) -> bool:
        """Whether any of its items was reviewed since the mistake was last made."""
        return len(self.unreviewed) < len(self.items)


def lessons(store: Store, links: dict[str, tuple[str, ...]], since: str | None = None) -> list[Lesson]:
    """Every misconception named by a grade (since `since`), latest first, with what was reviewed after it."""
    # Here, not at the top: a quiz imports this module for load_links before its first question.
    from normkata.content.suite_names import suite_names

    met: dict[str, tuple[str, str, str]] = {}  # id -> (title, kata, at), the latest naming
    naming: dict[str, tuple[str, int]] = {}  # id -> (the kata as stored, the attempt that named it last)
    for row in KataLog(store).diagnosed(since):
        named = _diagnosis(row)
        for one in named or ():
            # Shown on the dashboard and by next: what came from the record is escaped for the terminal.
            met[one["id"]] = (escape_name(one.get("title") or one["id"]), escape_name(str(row.kata)), row.at)
            naming[one["id"]] = (str(row.kata), int(row.id))

    reviewed = store.last_reviews()
    log = KataLog(store)
    found = []
    for misconception, (title, kata, at) in met.items():
        items = links.get(misconception, ())
        unreviewed = tuple(i for i in items if reviewed.get(i, "") < at)
        names = suite_names(kata)
        shown = Text(*(names.misconception(misconception, lang) or title for lang in ("en", "zh")))
        # Passed since: by the attempts' order, not their times (two grades in one second are common).
        stored_kata, named_by = naming[misconception]
        passed_since = any(a.passed for a in log.attempts_after(stored_kata, named_by))
        found.append(Lesson(misconception, shown, kata, at, items, unreviewed, passed_since))
    return sorted(found, key=lambda lesson: lesson.met_at, reverse=True)


def _diagnosis(row: Diagnosed) -> list[dict[str, str]] | None:
    """An attempt's named misconceptions, or None (noted) when the row cannot be read."""
    from normkata.record.fields import JSON_CHARS, JSON_DEPTH, diagnosis_shape

    try:
        if not isinstance(row.at, str):
            raise BadValue(f"must be a time, got {shown(row.at)}", "at")
        named = json_text(row.diagnosis, max_chars=JSON_CHARS, max_depth=JSON_DEPTH)
        diagnosis_shape(named)
    except BadValue as exc:
        skip(row.where, exc if exc.field == "at" else exc.under("diagnosis"))
        return None
    return named  # type: ignore[return-value]  # its shape was just checked


def pending_lessons(store: Store, links: dict[str, tuple[str, ...]]) -> list[Lesson]:
    """Lessons none of whose items was reviewed since the mistake: what `next` points at."""
    return [lesson for lesson in lessons(store, links) if lesson.items and not lesson.reviewed]


def week_start(now: datetime | None = None) -> str:
    return iso((now or utcnow()) - WEEK)


def item_action(bank: Bank, item_id: str) -> Action:
    """What practises one item: the quiz for a question, the interview for a card."""
    from normkata.actions import Action

    return Action.of("quiz" if bank.question(item_id) else "interview", id=(item_id,))


#: An item's title on a line that says more: its prompt's first line, cut to this many characters.
TITLE_CHARS = 72


def item_title(bank: Bank, item_id: str, lang: str) -> str:
    """What a learner reads for an item: its prompt's first line (cut with an ellipsis), not its id."""
    found = bank.question(item_id) or bank.card(item_id)
    if found is None:
        return item_id
    line = found.prompt.in_(lang).strip().splitlines()[0].strip()
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"
