"""Where the learner stands: mastery per topic, what is due, and the next step."""

from __future__ import annotations

from dataclasses import dataclass

from normkata.content.bank import Bank
from normkata.katas import load_katas
from normkata.srs import due_cutoff
from normkata.store import KataLog, KataStatus, Store

#: A card counts as mastered when its latest self-rating is Good or Easy.
GOOD_RATING = 3


@dataclass(frozen=True)
class TopicProgress:
    topic: str
    questions: int
    seen: int
    correct_latest: int
    cards: int
    cards_rated: int
    cards_good: int

    @property
    def mastery(self) -> float:
        """Share of the topic's questions and cards whose latest attempt went well."""
        total = self.questions + self.cards
        return (self.correct_latest + self.cards_good) / total if total else 0.0


@dataclass(frozen=True)
class Report:
    topics: list[TopicProgress]
    due: int
    counts: dict[str, int]
    katas: list[KataStatus]
    next_command: str
    next_reason: tuple[str, dict]

    def to_json(self) -> dict:
        return {
            "topics": [{**t.__dict__, "mastery": round(t.mastery, 4)} for t in self.topics],
            "due": self.due,
            "totals": self.counts,
            "katas": [k.__dict__ for k in self.katas],
            "next": self.next_command,
        }


def build_report(bank: Bank, store: Store) -> Report:
    answers = store.latest_answers()
    ratings = store.latest_ratings()
    topics = []
    for topic in bank.topics:
        questions = [q.id for q in bank.questions if q.topic == topic]
        cards = [c.id for c in bank.cards if c.topic == topic]
        topics.append(
            TopicProgress(
                topic=topic,
                questions=len(questions),
                seen=sum(q in answers for q in questions),
                correct_latest=sum(answers.get(q, False) for q in questions),
                cards=len(cards),
                cards_rated=sum(c in ratings for c in cards),
                cards_good=sum(ratings.get(c, 0) >= GOOD_RATING for c in cards),
            )
        )
    due = len(store.due_items(due_cutoff()))
    counts = store.counts()
    log = KataLog(store)
    katas = [log.status(kata.id) for kata in load_katas()[0]]
    command, reason = _next_step(topics, due, counts, katas)
    return Report(topics, due, counts, katas, command, reason)


def _next_step(
    topics: list[TopicProgress], due: int, counts: dict[str, int], katas: list[KataStatus]
) -> tuple[str, tuple[str, dict]]:
    if counts["answers"] == 0:
        return "normkata quiz -n 5", ("next.start", {})
    if due:
        return "normkata review", ("next.review", {"n": due})
    unfinished = next((k for k in katas if k.status == "in progress"), None)
    if unfinished:
        return f"normkata grade {unfinished.kata}", ("next.kata_unfinished", {})
    unrated = [t for t in topics if t.cards > t.cards_rated]
    weakest = min(topics, key=lambda t: t.mastery, default=None)
    if weakest and (weakest.seen < weakest.questions or weakest.mastery < 0.8):
        return f"normkata quiz --topic {weakest.topic}", ("next.weakest", {})
    if unrated:
        return f"normkata interview --topic {unrated[0].topic}", ("next.interview", {})
    fresh = next((k for k in katas if k.status == "not started"), None)
    if fresh:
        return f"normkata kata {fresh.kata}", ("next.kata_new", {})
    return "normkata interview", ("next.interview", {})
