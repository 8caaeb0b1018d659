"""What to do next, and a plan for the minutes left, from the learner's standing.

Candidates come in one order, which `next` and `plan --minutes` share:

1. leeches (forgotten `LEECH_LAPSES` times after being learnt), most lapses first;
2. a mistake a grade named, with the first item that explains it;
3. the reviews FSRS says are due, then katas due to be written again;
4. a learner who has answered no question yet, whatever else came first (cards, a kata): a
   diagnostic quiz spread over the core topics; then katas started but not passed;
5. the topics not yet strong: first those with answers, weakest first by the number each step
   shows (FSRS's recall now of the items answered, an item whose last attempt went wrong
   counting 0), then those not studied yet in the order of study (normkata.practice.curriculum):
   a quiz, then its interview cards, then the katas that come with that topic;
6. katas not started whose topics are all strong; 7. a mock interview.

`next` is the first candidate; `plan` takes them in turn while they fit, trimming a
quiz, a review or the cards to the minutes left, so plan's first step is always next's advice.
With an interview date (advice/dated.py), `next` is the first step of today's plan toward it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from normkata.actions import Action
from normkata.advice.standing import ItemStanding, KataStanding, Standing, load_standing
from normkata.i18n import Text, t
from normkata.practice import curriculum

if TYPE_CHECKING:
    from normkata.advice.dated import DatedStep

#: Seconds a learner spends on one item: a quiz question, an interview card said aloud.
SECONDS = {"question": 40, "card": 150}
#: An item this strong needs no practice before the interview.
STRONG = 0.8
#: At most this many questions, or cards, in one step: then another topic gets its turn.
MAX_QUESTIONS, MAX_CARDS = 10, 3
#: Questions in the diagnostic quiz a learner who has not started is offered; a plan never cuts
#: it below DIAGNOSTIC_MIN, so that it still spans that many core topics.
DIAGNOSTIC, DIAGNOSTIC_MIN = 5, 3
#: `normkata review` serves this many by default.
REVIEW_DEFAULT = 20
MOCK_MINUTES, MOCK_MIN_MINUTES = 20, 5


@dataclass(frozen=True)
class Step:
    action: Action
    minutes: int
    why_key: str
    fields: dict[str, object] = field(default_factory=dict)
    #: The items a quiz, review or cards step covers, in the order served; empty: a fixed step.
    items: tuple[ItemStanding, ...] = ()

    def why(self, lang: str) -> str:
        return t(self.why_key, lang, **{k: v.in_(lang) if isinstance(v, Text) else v for k, v in self.fields.items()})

    def shown(self, lang: str) -> str:
        """The command as the learner should type it in `lang`."""
        return self.action.command(lang)

    def to_json(self, lang: str) -> dict[str, object]:
        return {"command": self.shown(lang), **self.action.to_json(), "minutes": self.minutes, "why": self.why(lang)}


def next_step(standing: Standing) -> Step:
    """The first of the candidates `plan` takes in turn: next and plan never disagree."""
    return next(_candidates(standing), _mock(MOCK_MINUTES))


def plan(standing: Standing, minutes: int) -> list[Step]:
    """Steps whose minutes add up to at most `minutes`, weakest first."""
    steps: list[Step] = []
    left = minutes
    for step in _candidates(standing):
        fitted = step if step.minutes <= left else _trim(step, left)
        if fitted is not None:
            steps.append(fitted)
            left -= fitted.minutes
        if left <= 0:
            break
    if not steps and minutes >= MOCK_MIN_MINUTES:
        steps.append(_mock(min(minutes, MOCK_MINUTES)))
    return steps


def plan_json(standing: Standing, minutes: int | None, lang: str) -> dict[str, object]:
    """The object `plan --json` prints, for every door: with an interview date, every day to it
    (`minutes` None) or today's part of it within `minutes`; without one, one sitting of `minutes`."""
    if standing.deadline is None:
        return {"steps": [step.to_json(lang) for step in plan(standing, minutes or MOCK_MINUTES)]}
    from normkata.advice.dated import dated_plan

    made = dated_plan(standing, standing.deadline, today_minutes=minutes)
    if minutes is None:
        return made.to_json(lang)
    return {"until": made.until.isoformat(), "steps": [step.to_json(lang) for step in made.days[0].steps]}


def next_for(standing: Standing) -> Step | DatedStep:
    """`next`: with an interview date, the first step of today's plan toward it (when today has
    minutes left), else the first candidate."""
    if standing.deadline is not None:
        from normkata.advice.dated import dated_plan

        today = dated_plan(standing, standing.deadline).days[0]
        if today.steps:
            return today.steps[0]
    return next_step(standing)


def _candidates(standing: Standing) -> Iterator[Step]:
    leeches = sorted((i for i in standing.items if i.leech), key=lambda i: (-i.lapses, i.id))
    for item in leeches:
        yield Step(_practise(item), _minutes([item]), "advice.leech", {"item": item.id, "n": item.lapses}, (item,))
    yield from _lessons(standing)
    due = standing.due()
    if due:
        yield _review(due, len(due))
    yield from _katas_again(standing)
    if not any(i.seen for i in standing.items if i.kind == "question"):
        # No question answered yet, whatever came first (cards, a kata): where does the learner stand?
        first = _first_questions(standing, DIAGNOSTIC)
        yield _quiz_step(Action.of("quiz", n=DIAGNOSTIC), first, "advice.start", {})
    started = [k for k in standing.katas if k.status == "in progress"]
    for kata in started:
        best = f"{kata.best or 0:.0%}"
        yield Step(
            Action.of("grade", kata=kata.id), kata.minutes, "advice.kata_retry", {"kata": kata.title, "best": best}
        )
    offered: set[str] = {k.id for k in started}
    for topic in _weakest_topics(standing):
        questions = _weak(standing.of_topic(topic, "question"))
        if questions:
            yield _topic_quiz(topic, questions, standing)
        cards = _weak(standing.of_topic(topic, "card"))
        if cards:
            good = sum(c.good for c in standing.of_topic(topic, "card"))
            fields = {"topic": standing.titles[topic], "good": good, "cards": len(standing.of_topic(topic, "card"))}
            yield _cards_step(topic, cards[:MAX_CARDS], fields)
        for kata in _fresh_katas(standing, offered, topic, home=True):
            offered.add(kata.id)
            yield _kata_step(kata)
    for kata in _fresh_katas(standing, offered, None):
        yield _kata_step(kata)
    yield _mock(MOCK_MINUTES)


def _lessons(standing: Standing) -> Iterator[Step]:
    """A mistake a grade named, with the first item that explains it and was not reviewed since."""
    by_id = {i.id: i for i in standing.items}
    for lesson in standing.lessons:
        item = next((by_id[i] for i in lesson.unreviewed if i in by_id), None)
        if item is None:
            continue
        this = Text(t(f"advice.this.{item.kind}", "en"), t(f"advice.this.{item.kind}", "zh"))
        fields = {"kata": lesson.kata, "title": lesson.title, "this": this, "item": item.id}
        yield Step(_practise(item), _minutes([item]), lesson.why_key, fields, (item,))


def _katas_again(standing: Standing) -> Iterator[Step]:
    """Passed katas that FSRS says are due: write them again."""
    katas = {k.id: k for k in standing.katas}
    for due in standing.katas_due:
        kata = katas.get(due.kata)
        if kata is not None:
            fields = {"kata": kata.title, "when": due.due[:10]}
            yield Step(Action.of("review", kata=kata.id), kata.minutes, "advice.kata_again", fields)


def _first_questions(standing: Standing, n: int) -> list[ItemStanding]:
    """The diagnostic quiz's questions, as `normkata quiz` draws them on a fresh record."""
    return curriculum.diagnostic([i for i in standing.items if i.kind == "question"], n)


def _weakest_topics(standing: Standing) -> list[str]:
    """Topics whose mean strength is below STRONG: first those with answers, weakest first by
    `_answered_recall` (the number their quiz step shows); then those not studied yet, in the
    order of study, so that a thin record starts with the fundamentals."""
    answered: list[str] = []
    fresh: list[str] = []
    for topic in standing.topics:
        items = [i for i in standing.items if i.topic == topic]
        if not items or sum(i.strength for i in items) / len(items) >= STRONG:
            continue
        (answered if any(i.seen for i in items) else fresh).append(topic)

    def rank(topic: str) -> int:
        return curriculum.rank(topic, standing.topics)

    return sorted(answered, key=lambda t_: (_answered_recall(standing, t_), rank(t_))) + sorted(fresh, key=rank)


def _answered_recall(standing: Standing, topic: str) -> float:
    """A topic's expected recall on what the learner has answered or rated: the mean strength of its items seen."""
    seen = [i for i in standing.items if i.topic == topic and i.seen]
    return sum(i.strength for i in seen) / len(seen) if seen else 0.0


def _weak(items: list[ItemStanding]) -> list[ItemStanding]:
    """Items below STRONG: never seen first, then weakest."""
    return sorted((i for i in items if i.strength < STRONG), key=lambda i: (i.seen, i.strength))


def _topic_quiz(topic: str, questions: list[ItemStanding], standing: Standing) -> Step:
    everything = standing.of_topic(topic, "question")
    unseen = sum(not i.seen for i in everything)
    seen = sum(i.seen for i in standing.items if i.topic == topic)
    chosen = questions[:MAX_QUESTIONS]
    command = Action.of("quiz", topic=topic, n=len(chosen))
    if not seen:
        return _quiz_step(command, chosen, "advice.topic_new", {"topic": standing.titles[topic], "unseen": unseen})
    recall = f"{_answered_recall(standing, topic):.0%}"
    fields: dict[str, object] = {"topic": standing.titles[topic], "recall": recall, "seen": seen, "unseen": unseen}
    return _quiz_step(command, chosen, "advice.topic_quiz", fields)


def _quiz_step(command: Action, items: list[ItemStanding], key: str, fields: dict[str, object]) -> Step:
    return Step(command, _minutes(items), key, fields, tuple(items))


def _cards_step(topic: str, cards: list[ItemStanding], fields: dict[str, object]) -> Step:
    return Step(
        Action.of("interview", topic=topic, n=len(cards)),
        _minutes(cards),
        "advice.topic_cards",
        fields,
        tuple(cards),
    )


def _review(due: list[ItemStanding], n: int) -> Step:
    whole = n == len(due) and n <= REVIEW_DEFAULT
    return Step(
        Action.of("review", n=None if whole else n), _minutes(due[:n]), "advice.review", {"n": len(due)}, tuple(due[:n])
    )


def _kata_step(kata: KataStanding) -> Step:
    return Step(Action.of("kata", kata=kata.id), kata.minutes, "advice.kata_new", {"kata": kata.title})


def _fresh_katas(standing: Standing, offered: set[str], topic: str | None, home: bool = False) -> list[KataStanding]:
    """Katas not started nor offered yet: with `topic`, those that come with it in the order of
    study (`home`: the topic they are studied with, e.g. rmsnorm_backward with backward)."""

    def wanted(kata: KataStanding) -> bool:
        if topic is None:
            return True
        if home:
            return curriculum.kata_home(kata.home, kata.topics, standing.topics) == topic
        return topic in kata.topics

    return [k for k in standing.katas if k.status == "not started" and k.id not in offered and wanted(k)]


def _practise(item: ItemStanding) -> Action:
    """The quiz for a question, the interview for a card: that one item."""
    return Action.of("quiz" if item.kind == "question" else "interview", id=(item.id,))


def _mock(minutes: int) -> Step:
    return Step(Action.of("mock", minutes=minutes), minutes, "advice.mock")


def _minutes(items: list[ItemStanding] | tuple[ItemStanding, ...]) -> int:
    return max(1, math.ceil(sum(SECONDS[i.kind] for i in items) / 60))


def _trim(step: Step, left: int) -> Step | None:
    """The step cut to its first items that fit in `left` minutes; None when it cannot be cut or nothing fits."""
    if step.why_key == "advice.mock":
        return _mock(left) if left >= MOCK_MIN_MINUTES else None
    if not step.items or step.why_key == "advice.leech":
        return None
    n = len(step.items)
    while n and _minutes(step.items[:n]) > left:
        n -= 1
    if n == 0 or (step.why_key == "advice.start" and n < DIAGNOSTIC_MIN):
        return None
    kept = step.items[:n]
    if step.why_key == "advice.review":
        return _review(list(step.items), n)
    return replace(step, action=step.action.with_(n=n), minutes=_minutes(kept), items=kept)


def next_step_line(lang: str) -> str:
    """ "Next: normkata ...  (why)", read from the progress store: for the end of a grade or a quiz."""
    from normkata.content.bank import load_bank
    from normkata.record.store import open_store

    store = open_store()
    try:
        step = next_for(load_standing(load_bank(), store))
    finally:
        store.close()
    return t("dash.next", lang, cmd=step.shown(lang), why=step.why(lang))
