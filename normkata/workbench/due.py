"""Katas as reviewable items: a pass is an FSRS review, and a due kata is written again.

A kata's *round* runs from its start (or from the moment it came due and was written again)
to its first passing grade. That pass is the round's FSRS review, rated from what happened:

- the solution was shown in the round: Again (1);
- a hint was taken, or the pass came after more than twice the kata's minutes: Hard (2);
- the round's first grade passed within the kata's minutes: Easy (4);
- otherwise (failing grades first, or up to twice the minutes): Good (3).

Time runs from the round's start (`normkata kata NAME`, or `review` writing the starter) or,
when there is none, from its first grade (`watch` grades on the first save), to the pass.
Katas are scheduled in `srs` under the item id `kata:<id>`, kind `kata`, and their reviews
go to `review_logs` like any other.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from normkata.actions import Action, spoken
from normkata.grading.text import escape_name
from normkata.record.attempts import Graded, KataEvent, KataLog
from normkata.record.fields import event_detail
from normkata.record.store import Store, iso, utcnow
from normkata.record.values import BadValue, moment, skip

if TYPE_CHECKING:
    from normkata.content.bank import Bank
    from normkata.content.katas import Kata
    from normkata.grading.contract import GradeResult

KIND = "kata"
PREFIX = "kata:"

#: (rating, reason key) for each rule above, in the order they are tried.
REASONS = ("solution", "hints", "slow", "first", "failed", "time")


def item_id(kata_id: str) -> str:
    return PREFIX + kata_id


def kata_of(item: str) -> str:
    return item[len(PREFIX) :] if item.startswith(PREFIX) else item


def kata_rating(
    *, minutes: int, seconds: float | None, failed_before: int, hints: int, gave_up: bool
) -> tuple[int, str]:
    """The FSRS rating of a pass (1 Again .. 4 Easy) and the rule that gave it (a REASONS key)."""
    if gave_up:
        return 1, "solution"
    if hints:
        return 2, "hints"
    if seconds is not None and seconds > 2 * minutes * 60:
        return 2, "slow"
    if failed_before == 0 and (seconds is None or seconds <= minutes * 60):
        return 4, "first"
    return 3, "failed" if failed_before else "time"


@dataclass(frozen=True)
class Round:
    start: KataEvent | Graded | None  # what started it (a `review` or `started` event, else its first grade)
    events: list[KataEvent]  # kata_events in the round
    attempts: list[Graded]  # kata_attempts in the round
    again: bool  # a round of writing it again (after `review`), not the first

    @property
    def start_at(self) -> str | None:
        """ISO; None: nothing started it."""
        return self.start.at if self.start else None


def current_round(store: Store, kata: str) -> Round:
    log = KataLog(store)
    review = log.last_review_event(kata)
    after_event, after_attempt = 0, 0
    if review:
        after_event = int(review.id)
        try:
            event_detail("review", review.detail)
            after_attempt = int(json.loads(review.detail)["after_attempt"])
        except BadValue as exc:  # edited by hand: the round then holds every attempt
            skip(review.where, exc)
    events = log.events_after(kata, after_event)
    attempts = log.attempts_after(kata, after_attempt)
    start: KataEvent | Graded | None
    if review:
        start = review
    else:
        started = [e for e in events if e.kind == "started"]
        start = started[0] if started else (attempts[0] if attempts else None)
    return Round(start, events, attempts, review is not None)


def open_again(store: Store, kata: str) -> bool:
    """Whether the kata is being written again and has not passed yet in this round."""
    found = current_round(store, kata)
    return found.again and not any(a.passed for a in found.attempts)


def passed_here(store: Store, kata: str) -> bool:
    """Whether a grade run on this machine passed the kata (in its current round, when it is being
    written again): what opens its solution. Imported attempts prove nothing here."""
    if not KataLog(store).passed_here(kata):
        return False
    found = current_round(store, kata)
    return not found.again or any(a.passed and not a.imported for a in found.attempts)


@dataclass(frozen=True)
class KataReview:
    kata: str
    rating: int
    reason: str
    due: str  # ISO: when it comes due again
    seconds: float | None


def schedule_pass(store: Store, kata: Kata, now: datetime | None = None) -> KataReview | None:
    """After a passing attempt was recorded: the round's review, saved; None when the round had passed already."""
    from normkata.practice.srs import schedule

    found = current_round(store, kata.id)
    passes = [a for a in found.attempts if a.passed]
    if len(passes) != 1 or passes[0].id != found.attempts[-1].id:
        return None  # not a pass, or not the round's first: the round was rated already
    passed_at, started_at = _moment(passes[0]), _moment(found.start)
    seconds = (passed_at - started_at).total_seconds() if passed_at and started_at else None
    kinds = [e.kind for e in found.events]
    rating, reason = kata_rating(
        minutes=kata.minutes,
        seconds=seconds,
        failed_before=len(found.attempts) - 1,
        hints=kinds.count("hint"),
        gave_up="gave_up" in kinds,
    )
    duration = round(seconds * 1000) if seconds is not None and seconds >= 0 else None
    review = schedule(store, item_id(kata.id), rating, now or passed_at or utcnow(), duration, steps=False)
    store.record_review(item_id(kata.id), KIND, kata.topics[0] if kata.topics else kata.id, review)
    return KataReview(kata.id, rating, reason, review.due, seconds)


def _moment(row: KataEvent | Graded | None) -> datetime | None:
    """A row's time; None when there is no row or its time cannot be read (noted: edited by hand)."""
    if row is None:
        return None
    try:
        return moment(row.at, ahead=None)
    except BadValue as exc:
        skip(row.where, exc.under("at"))
        return None


@dataclass(frozen=True)
class Note:
    """One line to show after a grade: `style` is a theme name; `action`, what it suggests doing."""

    style: str
    text: str
    action: Action | None = None

    def words(self, lang: str) -> str:
        """The line with its action as the door serving the call says it."""
        if self.action is None:
            return self.text
        from normkata.i18n import t

        return t("note.action", lang, text=self.text, action=spoken(self.action, lang))

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "action": None if self.action is None else self.action.to_json()}


def after_attempt(store: Store, result: GradeResult, lang: str, bank: Bank | None = None) -> list[Note]:
    """What a recorded grade sets going: the kata's review on its round's first pass, and the
    items that teach each misconception it named, made due now. Returns the lines to show."""
    from normkata.content.katas import get_kata
    from normkata.i18n import t
    from normkata.practice.srs import when

    notes: list[Note] = []
    if result.passed:  # a failing grade costs nothing here: watch re-grades on every save
        kata = get_kata(result.kata, lang)
        review = schedule_pass(store, kata)
        if review:
            rating = t(f"rating.{review.rating}", lang)
            notes.append(
                Note(
                    "muted",
                    t(
                        "loop.kata_scheduled",
                        lang,
                        kata=kata.id,
                        rating=rating,
                        why=t(f"loop.reason.{review.reason}", lang, minutes=kata.minutes),
                        when=when(review.due, lang),
                    ),
                )
            )
    if result.diagnosis:
        from normkata.content.links import load_links
        from normkata.workbench.lessons import item_action, item_title, make_due

        if bank is None:
            from normkata.content.bank import load_bank

            bank = load_bank()
        links, _issues = load_links()
        for named in result.diagnosis:
            items = [i for i in links.get(named.id, ()) if bank.question(i) or bank.card(i)]
            if not items:
                continue
            make_due(store, bank, items)
            kind = t("advice.kind.question" if bank.question(items[0]) else "advice.kind.card", lang)
            more = t("loop.teach.more", lang, n=len(items) - 1) if len(items) > 1 else ""
            from normkata.content.suite_names import suite_names

            mistake = suite_names(result.kata).misconception(named.id, lang) or named.title
            notes.append(
                Note(
                    "next",
                    t(
                        "loop.teach",
                        lang,
                        mistake=mistake,
                        kind=kind,
                        title=item_title(bank, items[0], lang),
                        more=more,
                    ),
                    item_action(bank, items[0]),
                )
            )
    return notes


# -- writing a due kata again -----------------------------------------------------------------


@dataclass(frozen=True)
class DueKata:
    kata: str
    due: str


def due_katas(store: Store, before: datetime) -> list[DueKata]:
    rows = store.due_of_kind(KIND, before)
    # Shown on the dashboard and by next: what came from the record is escaped for the terminal.
    return [DueKata(escape_name(kata_of(str(row.item_id))), escape_name(str(row.due))) for row in rows]


HISTORY = "history"


def check_workspace(kata: Kata, workspace: Path, lang: str) -> bool:
    """What writing `kata` again will open, checked before anything is written: its file (True: the
    learner's is there) and the history folder; an InputError for a link or a special file in either."""
    from normkata.workbench import files

    files.check_folder(workspace / HISTORY, lang)
    return files.existing(workspace / kata.file, lang)


def keep_and_restart(store: Store, kata: Kata, workspace: Path, lang: str = "en") -> Path:
    """Keep the learner's file (in the record, and as a copy under history/), write a fresh
    starter in its place, and open a new round. Returns the file to write.

    The file and the history folder are opened without following links (normkata.workbench.files):
    a link in either place is refused with one line before anything is written.
    """
    from normkata.workbench import files

    target = workspace / kata.file
    present = check_workspace(kata, workspace, lang)
    if open_again(store, kata.id) and present:
        return target  # a round left unfinished goes on, with the learner's work in progress
    workspace.mkdir(parents=True, exist_ok=True)
    now = utcnow()
    log = KataLog(store)
    last = log.last_attempt_id(kata.id)
    if present:
        source = files.read(target, lang)
        files.write_in_folder(workspace / HISTORY, f"{target.stem}.{now:%Y%m%dT%H%M%S}.py", source, lang)
        log.keep(kata.id, str(target), source, iso(now))
    files.write(target, kata.starter.read_text(encoding="utf-8"), lang, replace=True)
    log.event(kata.id, "review", json.dumps({"after_attempt": int(last)}))
    return target


def fresh_seed(store: Store, kata: str, rng: random.Random | None = None) -> int:
    """A seed no earlier grade of this kata used: writing it again meets new inputs."""
    used = KataLog(store).seeds_used(kata)
    rng = rng or random.Random()
    while True:
        seed = rng.randrange(1, 2**31)
        if seed not in used:
            return seed
