"""A plan toward the interview date (`plan --until DATE`): every day from today to the eve of the
interview, each within its minutes, made from the predicted recall ON THE DAY of every question,
card, kata and named mistake (FSRS retrievability at the interview, not today's due list).

How it is made (docs/learners.md, "Before an interview", says the same to the learner):

1. Every item the learner has studied has an FSRS card; its predicted recall on the day is that
   card's retrievability at INTERVIEW_HOUR of the interview day if nothing more is done. An item
   at or above the target recall (`plan --target-recall`, default FSRS's own desired retention
   0.90) is solid and left alone, in every step.
2. Coverage first: before the last day, every core topic (its bank file says `core: true`) gets
   new material: a first taste of it (TASTE_QUESTIONS questions, TASTE_CARDS card), then the
   core katas in the order interviewers are likeliest to ask for them (kata.yaml's `core:`
   rank: RMSNorm and the Pre-Norm block first), as the minutes allow. On each day this comes
   before the reviews, so reviews never take the minutes unseen core material needs, and while
   a core topic is unseen no single new piece takes a whole day.
3. The days are simulated in turn, each review assumed to go well (rated Good): on each day the
   items FSRS will have due and that would be under the target on the day are reviewed, those
   predicted lowest first, as many as the day's minutes allow; on the last evening every item
   still under the target gets one last look. A mistake a grade named, whose explaining items
   were not reviewed since, comes first today.
4. The rest of the new material (questions never answered, cards never rated, katas not started
   or not passed) is spread evenly, in the order of study, over the days from which FSRS's first
   interval still ends before the interview, so that each piece is met once and reviewed once
   before the day: learned, not crammed.
5. The last evening ends with a mock interview.

Each step says what its items' predicted recall on the day would be without it (0 for new
material and named mistakes); a day's steps are listed lowest first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING

from normkata.actions import Action
from normkata.advice.deadline import (
    Deadline,
    interview_moment,
    minutes_per_day,
    sessions,
    studied_minutes,
)
from normkata.advice.standing import ItemStanding, KataStanding, Standing
from normkata.i18n import Text, t
from normkata.practice import curriculum
from normkata.practice.srs import LEARN_AHEAD

if TYPE_CHECKING:
    from fsrs import Card

#: A core topic's first taste: its easiest questions never answered and cards never rated.
TASTE_QUESTIONS, TASTE_CARDS = 5, 1
#: Seconds a learner spends on one item: a quiz question, an interview card said aloud.
SECONDS = {"question": 40, "card": 150}
#: The last evening's mock interview, and the shortest one worth having.
MOCK_MINUTES, MOCK_MIN_MINUTES = 20, 5
#: Ids named in one `quiz --id ...` or `interview --id ...` step of the last evening's look.
IDS_PER_STEP = 8
#: `normkata review` serves this many by default.
REVIEW_DEFAULT = 20
#: Days from a first answer rated Good to its first review: FSRS 6's default initial stability
#: for Good (w[2] = 2.31) with normkata's one learning step gives 2.
FIRST_INTERVAL_DAYS = 2


@dataclass(frozen=True)
class DatedStep:
    action: Action
    minutes: int
    why_key: str
    fields: dict[str, object] = field(default_factory=dict)
    #: The predicted recall on the day of what this step covers if it is skipped (0: not learnt yet).
    predicted_recall: float = 0.0
    #: The ids of the questions, cards and katas (`kata:<id>`) it covers, as planned.
    items: tuple[str, ...] = ()

    def why(self, lang: str) -> str:
        return t(self.why_key, lang, **{k: v.in_(lang) if isinstance(v, Text) else v for k, v in self.fields.items()})

    def shown(self, lang: str) -> str:
        return self.action.command(lang)

    def to_json(self, lang: str) -> dict[str, object]:
        return {
            "command": self.shown(lang),
            **self.action.to_json(),
            "minutes": self.minutes,
            "why": self.why(lang),
            "predicted_recall": round(self.predicted_recall, 4),
        }


@dataclass(frozen=True)
class Day:
    day: date
    minutes: int  # the day's budget
    steps: list[DatedStep]

    @property
    def planned(self) -> int:
        return sum(step.minutes for step in self.steps)

    def to_json(self, lang: str) -> dict[str, object]:
        return {
            "date": self.day.isoformat(),
            "minutes": self.minutes,
            "planned": self.planned,
            "steps": [step.to_json(lang) for step in self.steps],
        }


@dataclass(frozen=True)
class DatedPlan:
    until: date
    minutes_per_day: int
    minutes_from: str  # given | habit | default
    days: list[Day]
    #: Mean predicted recall on the day over every question and card: if nothing more is done,
    #: and if the plan is followed (every review going well).
    recall_now: float
    recall_planned: float
    #: topic -> mean predicted recall on the day of its questions and cards, if nothing more is done.
    topics: dict[str, float]
    left_alone: int  # items studied and predicted at or above `target` on the day
    left_over: int  # items under `target` on the day for which no day had minutes left
    new_left: int  # pieces of new material (questions, cards, katas) no day had minutes for
    target: float  # the target recall on the day (`plan --target-recall`)

    def to_json(self, lang: str) -> dict[str, object]:
        return {
            "until": self.until.isoformat(),
            "minutes_per_day": self.minutes_per_day,
            "minutes_from": self.minutes_from,
            "target_recall": self.target,
            "days": [day.to_json(lang) for day in self.days],
            "predicted_recall": {
                "if_you_stop": round(self.recall_now, 4),
                "with_the_plan": round(self.recall_planned, 4),
            },
            "left_alone": self.left_alone,
            "left_over": self.left_over,
            "new_left": self.new_left,
        }


@dataclass
class _Unit:
    """A question, card or passed kata, with its FSRS card as the simulation moves it on."""

    id: str
    kind: str  # question | card | kata
    topic: str
    seconds: int
    card: Card | None
    kata: KataStanding | None = None


@dataclass
class _Piece:
    """New material to meet once: unseen questions or unrated cards of a topic, or a kata."""

    kind: str  # question | card | kata | retry
    topic: str
    units: list[_Unit] = field(default_factory=list)
    kata: KataStanding | None = None
    #: Coverage: a core topic's first taste or a core kata, met before the reviews of its day.
    core: bool = False

    @property
    def minutes(self) -> int:
        if self.kata is not None:
            return self.kata.minutes
        return _minutes(self.units)


def _minutes(units: Iterable[_Unit]) -> int:
    return max(1, math.ceil(sum(u.seconds for u in units) / 60))


class _Simulation:
    def __init__(self, standing: Standing, interview: datetime) -> None:
        from normkata.practice.srs import scheduler

        self.interview = interview
        self.items = scheduler(standing.parameters, fuzz=False)
        self.katas = scheduler(standing.parameters, steps=False, fuzz=False)

    def recall(self, unit: _Unit, moment: datetime | None = None) -> float:
        if unit.card is None:
            return 0.0
        fsrs_scheduler = self.katas if unit.kind == "kata" else self.items
        return float(fsrs_scheduler.get_card_retrievability(unit.card, moment or self.interview))

    def review(self, unit: _Unit, moment: datetime) -> None:
        """The unit reviewed at `moment` and rated Good (the plan's assumption)."""
        from fsrs import Card, Rating

        fsrs_scheduler = self.katas if unit.kind == "kata" else self.items
        unit.card, _ = fsrs_scheduler.review_card(unit.card or Card(due=moment), Rating.Good, review_datetime=moment)

    @staticmethod
    def due(unit: _Unit, moment: datetime) -> bool:
        return unit.card is not None and unit.card.due <= moment + LEARN_AHEAD


def dated_plan(standing: Standing, deadline: Deadline, *, today_minutes: int | None = None) -> DatedPlan:
    """The plan from today to the eve of `deadline.day`; `today_minutes` replaces today's budget (`plan --minutes`)."""
    from fsrs import Card

    now, clock, target = standing.now, standing.clock, deadline.target
    interview = interview_moment(deadline.day, now, clock)
    simulation = _Simulation(standing, interview)
    per_day, source = minutes_per_day(deadline, list(standing.spans), now, clock)
    units = [
        _Unit(i.id, i.kind, i.topic, SECONDS[i.kind], Card.from_json(i.card_json) if i.card_json else None)
        for i in standing.items
    ]
    units += [
        _Unit(f"kata:{k.id}", "kata", k.topics[0] if k.topics else k.id, k.minutes * 60, Card.from_json(k.card_json), k)
        for k in standing.katas
        if k.card_json
    ]
    items = [u for u in units if u.kind != "kata"]
    before = {u.id: simulation.recall(u) for u in units}
    topics = _topic_recall(standing, items, before)
    core_topics = [topic for topic in curriculum.core_topics() if topic in standing.topics]
    pieces = _new_material(standing, units, core_topics)

    def core_unseen() -> bool:
        """A core topic none of whose questions and cards is studied yet, nor planned."""
        return any(all(u.card is None for u in items if u.topic == topic) for topic in core_topics)

    days_ahead = sessions(deadline.day, now, clock)
    # New material is met on the days from which FSRS's first interval (FIRST_INTERVAL_DAYS after
    # a first Good) still falls on a session before the interview, so it is reviewed once before
    # the day; with fewer days than that, on the first day only. Coverage (core pieces) may go on
    # to the eve of the last day.
    learning_days = max(1, len(days_ahead) - FIRST_INTERVAL_DAYS)
    studied_today = studied_minutes(list(standing.spans), clock).get(clock.day_of(now), 0)
    days: list[Day] = []
    left_over = 0
    for index, (day, moment) in enumerate(days_ahead):
        last = index == len(days_ahead) - 1
        budget = per_day if index else (today_minutes if today_minutes is not None else max(0, per_day - studied_today))
        steps: list[DatedStep] = []
        left = budget
        # The last evening's mock takes a third of it (MOCK_MINUTES at most): the rest is for what would slip.
        mock = min(MOCK_MINUTES, max(MOCK_MIN_MINUTES, left // 3), left) if last and left >= MOCK_MIN_MINUTES else 0
        left -= mock
        # Met today, reviewed on a session FIRST_INTERVAL_DAYS later: only when one is left before the interview.
        late = index + FIRST_INTERVAL_DAYS > len(days_ahead) - 1
        learn = _Learning(simulation, moment, standing.titles, steps, budget, late, core_unseen)
        if index == 0:
            left = _lessons(standing, units, simulation, moment, steps, left)
        if not last or len(days_ahead) == 1:
            left = learn(pieces, left, left, core=True)
        left = _reviews(units, simulation, moment, deadline.day, steps, left, target)
        if last:
            left, left_over = _last_look(units, simulation, moment, deadline.day, steps, left, target)
        if index < learning_days:
            share = math.ceil(sum(p.minutes for p in pieces) / (learning_days - index))
            left = learn(pieces, left, share)
        if mock:
            studied = [u for u in items if u.card is not None]
            recall = sum(simulation.recall(u) for u in studied) / len(studied) if studied else 0.0
            steps.append(
                DatedStep(
                    Action.of("mock", minutes=mock),
                    mock,
                    "dated.mock",
                    {"date": deadline.day.isoformat(), "recall": f"{recall:.0%}"},
                    recall,
                )
            )
        steps.sort(key=lambda step: step.predicted_recall)  # stable: equal numbers keep their order of priority
        days.append(Day(day, budget, steps))
    after = {u.id: simulation.recall(u) for u in items}
    mean_now = sum(before[u.id] for u in items) / len(items) if items else 0.0
    mean_after = sum(after.values()) / len(after) if after else 0.0
    solid = sum(before[u.id] >= target for u in units if u.card is not None)
    new_left = sum(len(p.units) if p.kata is None else 1 for p in pieces)
    return DatedPlan(
        deadline.day, per_day, source, days, mean_now, mean_after, topics, solid, left_over, new_left, target
    )


def item_recall_on_the_day(standing: Standing, deadline: Deadline) -> dict[str, float]:
    """Every question's and card's predicted recall on the interview day if nothing more is done (0: never studied)."""
    from fsrs import Card

    simulation = _Simulation(standing, interview_moment(deadline.day, standing.now, standing.clock))
    return {
        i.id: simulation.recall(
            _Unit(i.id, i.kind, i.topic, SECONDS[i.kind], Card.from_json(i.card_json) if i.card_json else None)
        )
        for i in standing.items
    }


def recall_on_the_day(standing: Standing, deadline: Deadline) -> tuple[float, dict[str, float]]:
    """The mean predicted recall on the interview day of every question and card if nothing more
    is done, and the same per topic (the dashboard's column)."""
    recall = item_recall_on_the_day(standing, deadline)
    items = [_Unit(i.id, i.kind, i.topic, SECONDS[i.kind], None) for i in standing.items]
    overall = sum(recall.values()) / len(recall) if recall else 0.0
    return overall, _topic_recall(standing, items, recall)


def _topic_recall(standing: Standing, items: list[_Unit], recall: dict[str, float]) -> dict[str, float]:
    out = {}
    for topic in standing.topics:
        mine = [u for u in items if u.topic == topic]
        out[topic] = sum(recall[u.id] for u in mine) / len(mine) if mine else 0.0
    return out


def _lessons(
    standing: Standing, units: list[_Unit], simulation: _Simulation, moment: datetime, steps: list[DatedStep], left: int
) -> int:
    """A mistake a grade named: the first item that explains it, today (the mistake was made: recall 0)."""
    by_id = {u.id: u for u in units}
    for lesson in standing.lessons:
        unit = next((by_id[i] for i in lesson.unreviewed if i in by_id), None)
        if unit is None or unit.seconds > left * 60:
            continue
        this = Text(t(f"advice.this.{unit.kind}", "en"), t(f"advice.this.{unit.kind}", "zh"))
        command = Action.of("quiz" if unit.kind == "question" else "interview", id=(unit.id,))
        fields = {"kata": lesson.kata, "title": lesson.title, "this": this, "item": unit.id}
        steps.append(DatedStep(command, _minutes([unit]), lesson.why_key, fields, 0.0, (unit.id,)))
        left -= _minutes([unit])
        simulation.review(unit, moment)
    return left


def _reviews(
    units: list[_Unit],
    simulation: _Simulation,
    moment: datetime,
    day: date,
    steps: list[DatedStep],
    left: int,
    target: float,
) -> int:
    """What FSRS has due at `moment` and would be under `target` on the day, lowest predicted
    recall on the day first, while minutes are left (what is due yet solid on the day is left alone)."""
    due = sorted(
        (u for u in units if simulation.due(u, moment) and simulation.recall(u) < target),
        key=lambda u: (simulation.recall(u), u.id),
    )
    items = [u for u in due if u.kind != "kata"]
    chosen: list[_Unit] = []
    for unit in items:
        if _minutes([*chosen, unit]) <= left:
            chosen.append(unit)
    if chosen:
        recall = sum(simulation.recall(u) for u in chosen) / len(chosen)
        whole = len(chosen) == len(items) and len(chosen) <= REVIEW_DEFAULT
        command = Action.of("review", n=None if whole else len(chosen))
        fields = {"n": len(chosen), "date": day.isoformat(), "recall": f"{recall:.0%}"}
        steps.append(DatedStep(command, _minutes(chosen), "dated.review", fields, recall, tuple(u.id for u in chosen)))
        left -= _minutes(chosen)
        for unit in chosen:
            simulation.review(unit, moment)
    for unit in (u for u in due if u.kind == "kata"):
        kata = unit.kata
        if kata is None or kata.minutes > left:
            continue
        recall = simulation.recall(unit)
        fields = {"kata": kata.title, "date": day.isoformat(), "recall": f"{recall:.0%}"}
        steps.append(
            DatedStep(Action.of("review", kata=kata.id), kata.minutes, "dated.kata_again", fields, recall, (unit.id,))
        )
        left -= kata.minutes
        simulation.review(unit, moment)
    return left


def _last_look(
    units: list[_Unit],
    simulation: _Simulation,
    moment: datetime,
    day: date,
    steps: list[DatedStep],
    left: int,
    target: float,
) -> tuple[int, int]:
    """The last evening: every item still under `target` on the day, by name (they are not due yet,
    so `review` would not serve them). Returns the minutes left and how many did not fit."""
    slipping = sorted(
        (u for u in units if u.card is not None and u.kind != "kata" and simulation.recall(u) < target),
        key=lambda u: (simulation.recall(u), u.id),
    )
    groups: dict[str, list[_Unit]] = {"question": [], "card": []}
    missed = 0
    for unit in slipping:
        tried = {**groups, unit.kind: [*groups[unit.kind], unit]}
        if _chunked_minutes(tried) <= left:
            groups = tried
        else:
            missed += 1
    for kind, group in groups.items():
        for start in range(0, len(group), IDS_PER_STEP):
            chunk = group[start : start + IDS_PER_STEP]
            recall = sum(simulation.recall(u) for u in chunk) / len(chunk)
            command = Action.of("quiz" if kind == "question" else "interview", id=tuple(u.id for u in chunk))
            fields = {"n": len(chunk), "date": day.isoformat(), "recall": f"{recall:.0%}", "target": f"{target:.0%}"}
            steps.append(
                DatedStep(command, _minutes(chunk), "dated.last_look", fields, recall, tuple(u.id for u in chunk))
            )
            left -= _minutes(chunk)
            for unit in chunk:
                simulation.review(unit, moment)
    return left, missed


def _chunked_minutes(groups: dict[str, list[_Unit]]) -> int:
    """The minutes of the steps `_last_look` makes of `groups`: IDS_PER_STEP items a step."""
    return sum(_minutes(g[i : i + IDS_PER_STEP]) for g in groups.values() for i in range(0, len(g), IDS_PER_STEP))


def _new_material(standing: Standing, units: list[_Unit], core_topics: Sequence[str]) -> list[_Piece]:
    """What is still to be met, in the order it is best met: katas started and not passed; then
    coverage, each core topic's first taste in the order of study and the core katas in the order
    interviewers ask; then each topic in the order of study with the rest of its unseen
    questions, its unrated cards and its katas; then every other kata."""
    by_id = {u.id: u for u in units}

    def unmet(topic: str, kind: str) -> list[_Unit]:
        return [by_id[i.id] for i in _in_study_order(standing.items, topic, kind) if by_id[i.id].card is None]

    pieces = [
        _Piece("retry", k.topics[0] if k.topics else k.id, kata=k, core=k.core is not None)
        for k in standing.katas
        if k.status == "in progress"
    ]
    offered = {k.id for k in standing.katas if k.status != "not started"}
    tasted: set[str] = set()
    for topic in core_topics:
        for kind, size in (("question", TASTE_QUESTIONS), ("card", TASTE_CARDS)):
            taste = unmet(topic, kind)[:size]
            tasted.update(u.id for u in taste)
            if taste:
                pieces.append(_Piece(kind, topic, taste, core=True))
    for kata in sorted((k for k in standing.katas if k.core is not None), key=lambda k: (k.core or 0, k.id)):
        if kata.id not in offered:
            offered.add(kata.id)
            pieces.append(_Piece("kata", kata.topics[0] if kata.topics else kata.id, kata=kata, core=True))
    for topic in curriculum.ordered(standing.topics):
        for kind in ("question", "card"):
            rest = [u for u in unmet(topic, kind) if u.id not in tasted]
            if rest:
                pieces.append(_Piece(kind, topic, rest))
        for kata in standing.katas:
            home = curriculum.kata_home(kata.home, kata.topics, standing.topics)
            if kata.id not in offered and home == topic:
                offered.add(kata.id)
                pieces.append(_Piece("kata", topic, kata=kata))
    pieces += [_Piece("kata", k.topics[0] if k.topics else k.id, kata=k) for k in standing.katas if k.id not in offered]
    return pieces


def _in_study_order(items: Sequence[ItemStanding], topic: str, kind: str) -> list[ItemStanding]:
    """A topic's items of `kind`, easy first (as a quiz of new questions draws them)."""
    from normkata.content.model import DIFFICULTIES

    mine = [i for i in items if i.topic == topic and i.kind == kind]
    return sorted(mine, key=lambda i: DIFFICULTIES.index(i.difficulty) if i.difficulty in DIFFICULTIES else 1)


@dataclass
class _Learning:
    """Meeting new material on one day (its session at `moment`, its whole `budget`)."""

    simulation: _Simulation
    moment: datetime
    titles: dict[str, Text]
    steps: list[DatedStep]
    budget: int
    late: bool  # no session is left to review what is met today
    core_unseen: Callable[[], bool]
    #: (kind, topic) -> the index in `steps` of the day's step of its new items and those items:
    #: a topic's first taste and more of it on one day are one step.
    met: dict[tuple[str, str], tuple[int, list[_Unit]]] = field(default_factory=dict)

    def __call__(self, pieces: list[_Piece], left: int, share: int, *, core: bool = False) -> int:
        """About `share` minutes of `pieces` (`core`: of the core ones alone), never more than
        `left`, in their order. A piece too long for the day is cut (questions, cards) or, a kata,
        keeps its place for a day with room while the pieces after it go on; a kata that would
        take the whole day waits while a core topic is unseen."""
        spent, index = 0, 0
        while index < len(pieces) and spent < share and left > 0:
            piece = pieces[index]
            room = min(left, share - spent)
            if core and not piece.core:
                index += 1
                continue
            if piece.kata is not None:
                whole_day = piece.kata.minutes >= self.budget and self.core_unseen()
                if piece.kata.minutes > left or whole_day:
                    index += 1
                    continue
                self.steps.append(_kata_step(piece))
                pieces.pop(index)
                used = piece.kata.minutes
            else:
                taken = [u for n, u in enumerate(piece.units) if _minutes(piece.units[: n + 1]) <= room]
                if not taken and spent == 0 and _minutes(piece.units[:1]) <= left:
                    taken = piece.units[:1]  # a day's share shorter than one card still meets one
                if not taken:
                    if core:
                        index += 1  # a later core piece may still fit
                        continue
                    break
                used = self._meet(piece, taken)
                for unit in taken:
                    self.simulation.review(unit, self.moment)
                piece.units = piece.units[len(taken) :]
                if not piece.units:
                    pieces.pop(index)
            spent, left = spent + used, left - used
        return left

    def _meet(self, piece: _Piece, taken: list[_Unit]) -> int:
        """The step that meets `taken` (joined to the day's step of the same topic and kind); its added minutes."""
        key = (piece.kind, piece.topic)
        if key in self.met:
            index, before = self.met[key]
            old = self.steps[index]
            self.steps[index] = _new_items_step(piece, [*before, *taken], self.titles, self.late)
            self.met[key] = (index, [*before, *taken])
            return self.steps[index].minutes - old.minutes
        self.met[key] = (len(self.steps), list(taken))
        self.steps.append(_new_items_step(piece, taken, self.titles, self.late))
        return self.steps[-1].minutes


def _kata_step(piece: _Piece) -> DatedStep:
    kata = piece.kata
    assert kata is not None
    if piece.kind == "retry":
        best = f"{kata.best or 0:.0%}"
        fields: dict[str, object] = {"kata": kata.title, "best": best}
        return DatedStep(
            Action.of("grade", kata=kata.id), kata.minutes, "advice.kata_retry", fields, items=(f"kata:{kata.id}",)
        )
    return DatedStep(
        Action.of("kata", kata=kata.id),
        kata.minutes,
        "advice.kata_new",
        {"kata": kata.title},
        items=(f"kata:{kata.id}",),
    )


def _new_items_step(piece: _Piece, taken: list[_Unit], titles: dict[str, Text], late: bool) -> DatedStep:
    """A quiz of new questions or cards never rated; `late`: no session is left to review them."""
    n = len(taken)
    if piece.kind == "question":
        command, key = Action.of("quiz", topic=piece.topic, new=True, n=n), "dated.new_questions"
    else:
        command, key = Action.of("interview", topic=piece.topic, new=True, n=n), "dated.new_cards"
    key += ".late" if late else ""
    title = titles.get(piece.topic, Text(piece.topic, piece.topic))
    return DatedStep(command, _minutes(taken), key, {"topic": title, "n": n}, items=tuple(u.id for u in taken))
