"""What the learner's records say about each item and kata, gathered once for the advisor."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from normkata.advice.deadline import HABIT_DAYS, Deadline
from normkata.advice.deadline import load as load_deadline
from normkata.clock import Clock, current
from normkata.content.bank import Bank
from normkata.content.katas import load_katas
from normkata.content.links import load_links
from normkata.i18n import Text
from normkata.practice.srs import GOOD_RATING, LEECH_LAPSES, due_cutoff, retrievability
from normkata.record.attempts import KataLog
from normkata.record.store import Store, iso
from normkata.record.values import stored_card
from normkata.workbench.due import DueKata, due_katas
from normkata.workbench.due import item_id as kata_item
from normkata.workbench.lessons import Lesson, pending_lessons


@dataclass(frozen=True)
class ItemStanding:
    id: str
    kind: str  # question | card
    topic: str
    seen: bool
    good: bool  # the latest answer was right, or the latest rating Good or Easy
    recall: float  # FSRS retrievability now; 0 for an item never reviewed
    lapses: int
    due: str | None  # ISO date of the next review; None when never reviewed
    difficulty: str = "medium"
    card_json: str | None = None  # the FSRS card (fsrs.Card JSON); None when never reviewed

    @property
    def strength(self) -> float:
        """How likely the learner gets it right now: FSRS's recall when the last attempt went well, else 0."""
        return self.recall if self.good else 0.0

    @property
    def leech(self) -> bool:
        return self.lapses >= LEECH_LAPSES


@dataclass(frozen=True)
class KataStanding:
    id: str
    title: Text
    minutes: int
    topics: tuple[str, ...]
    status: str  # not started | in progress | passed
    best: float | None
    card_json: str | None = None  # its FSRS card (item `kata:<id>`) once passed
    home: str | None = None  # the topic it is studied with (kata.yaml's `home:`)
    core: int | None = None  # a core kata's place in the order interviewers ask (kata.yaml's `core:`)


@dataclass(frozen=True)
class Standing:
    topics: list[str]  # in the bank's order
    titles: dict[str, Text]
    items: list[ItemStanding]
    katas: list[KataStanding]
    due_before: str  # ISO: items due before this count as due (FSRS's learn-ahead included)
    #: Passed katas FSRS says are due to be written again, soonest first (kata_loop).
    katas_due: tuple[DueKata, ...] = ()
    #: Mistakes a grade named whose teaching items were not reviewed since, latest first (teaching).
    lessons: tuple[Lesson, ...] = ()
    #: The interview date `plan --until` remembers, and the moment this standing was read.
    deadline: Deadline | None = None
    now: datetime = field(default_factory=lambda: current().now())
    #: The learner's clock `now` was read from: what tells the learner's days apart.
    clock: Clock = field(default_factory=current)
    #: The learner's FSRS parameters (`review --optimize`); None: fsrs's defaults.
    parameters: tuple[float, ...] | None = None
    #: Finished practice sessions of the last weeks, (start, end): the learner's habit and today's minutes.
    spans: tuple[tuple[datetime, datetime], ...] = ()

    @property
    def started(self) -> bool:
        return any(i.seen for i in self.items) or any(k.status != "not started" for k in self.katas)

    def due(self) -> list[ItemStanding]:
        """Items due now, soonest first, as `normkata review` serves them."""
        due = [i for i in self.items if i.due is not None and i.due <= self.due_before]
        return sorted(due, key=lambda i: (i.due or "", i.id))

    def of_topic(self, topic: str, kind: str) -> list[ItemStanding]:
        return [i for i in self.items if i.topic == topic and i.kind == kind]


def load_standing(bank: Bank, store: Store, clock: Clock | None = None) -> Standing:
    """The standing now by `clock` (the process's clock when None)."""
    clock = clock or current()
    moment = clock.now()
    answers, ratings, lapses = store.latest_answers(), store.latest_ratings(), store.lapses()
    # A schedule whose card fsrs cannot use (edited by hand) is left out, as if never reviewed, and noted.
    schedules = {
        row.item_id: row for row in store.srs_states() if stored_card(row.card_json, f"srs {row.item_id}") is not None
    }
    parameters = store.fsrs_parameters()
    recall = retrievability({item: row.card_json for item, row in schedules.items()}, moment, parameters)

    def item(item_id: str, kind: str, topic: str, good: bool | None, difficulty: str) -> ItemStanding:
        row = schedules.get(item_id)
        return ItemStanding(
            item_id,
            kind,
            topic,
            good is not None,
            bool(good),
            recall.get(item_id, 0.0),
            lapses.get(item_id, 0),
            row.due if row else None,
            difficulty,
            row.card_json if row else None,
        )

    items = [item(q.id, "question", q.topic, answers.get(q.id), q.difficulty) for q in bank.questions]
    items += [
        item(c.id, "card", c.topic, ratings[c.id] >= GOOD_RATING if c.id in ratings else None, c.difficulty)
        for c in bank.cards
    ]
    log = KataLog(store)
    katas = []
    for kata in load_katas()[0]:
        status = log.status(kata.id)
        row = schedules.get(kata_item(kata.id))
        katas.append(
            KataStanding(
                kata.id,
                kata.title,
                kata.minutes,
                kata.topics,
                status.status,
                status.best_score,
                row.card_json if row else None,
                kata.home,
                kata.core,
            )
        )
    titles = {topic: info.title for topic, info in bank.topics.items()}
    links, _issues = load_links()
    cutoff = due_cutoff(moment)
    return Standing(
        list(bank.topics),
        titles,
        items,
        katas,
        iso(cutoff),
        tuple(due_katas(store, cutoff)),
        tuple(pending_lessons(store, links)),
        load_deadline(store, clock),
        moment,
        clock,
        tuple(parameters) if parameters else None,
        tuple(store.session_spans(moment - timedelta(days=HABIT_DAYS + 1))),
    )
