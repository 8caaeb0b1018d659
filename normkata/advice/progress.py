"""Where the learner stands: mastery per topic, what is due, katas passed, and the next step."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from normkata.advice.advisor import Step, next_for
from normkata.advice.dated import DatedStep
from normkata.advice.standing import load_standing
from normkata.clock import Clock
from normkata.content.bank import Bank
from normkata.content.links import load_links
from normkata.practice.srs import GOOD_RATING, due_cutoff
from normkata.record.attempts import KataStatus
from normkata.record.fields import MAX_SECONDS
from normkata.record.mocks import MockSummary
from normkata.record.store import Store
from normkata.record.values import shown, skip
from normkata.workbench.due import DueKata
from normkata.workbench.lessons import Lesson, lessons, week_start

#: In a topic that katas cover, passing them makes up this share of its mastery: writing the
#: layer is part of knowing it, yet one kata must not outweigh a whole question bank.
KATA_SHARE = 0.2


@dataclass(frozen=True)
class TopicProgress:
    topic: str
    questions: int
    seen: int
    correct_latest: int
    cards: int
    cards_rated: int
    cards_good: int
    katas: int = 0  # katas that list this topic
    katas_passed: int = 0

    @property
    def mastery(self) -> float:
        """Questions last answered right and cards last rated Good or Easy, out of all; katas passed
        make up KATA_SHARE of it where the topic has any."""
        total = self.questions + self.cards
        recall = (self.correct_latest + self.cards_good) / total if total else 0.0
        if not self.katas:
            return recall
        return (1 - KATA_SHARE) * recall + KATA_SHARE * self.katas_passed / self.katas


@dataclass(frozen=True)
class Report:
    topics: list[TopicProgress]
    due: int
    counts: dict[str, int]
    katas: list[KataStatus]
    next: Step | DatedStep
    #: The learning loop: katas due to be written again, and misconceptions graded this week.
    katas_due: list[DueKata] = field(default_factory=list)
    met_this_week: list[Lesson] = field(default_factory=list)
    #: Mock interviews saved, and the share of key points made in the last one (None: unscored).
    mocks: int = 0
    last_mock_share: float | None = None
    #: Seconds spent answering: every review log's duration (quiz, cards, review) plus the mocks.
    seconds_studied: int = 0
    seconds_mock: int = 0
    #: The interview date (`plan --until`), the days left, and the predicted recall on that day of
    #: every question and card, overall and per topic, if nothing more is done.
    until: date | None = None
    days_left: int = 0
    recall_on_the_day: float = 0.0
    topic_recall_on_the_day: dict[str, float] = field(default_factory=dict)

    def to_json(self, lang: str = "en") -> dict:
        return {
            "topics": [{**t.__dict__, "mastery": round(t.mastery, 4)} for t in self.topics],
            "due": self.due,
            "totals": self.counts,
            "katas": [k.__dict__ for k in self.katas],
            "katas_passed": sum(k.status == "passed" for k in self.katas),
            "next": self.next.shown(lang),
            "next_why": self.next.why(lang),
            "katas_due": [{"kata": k.kata, "due": k.due} for k in self.katas_due],
            "misconceptions_this_week": [
                {
                    "id": m.misconception,
                    "kata": m.kata,
                    "title": m.title.in_(lang),
                    "met_at": m.met_at,
                    "items": list(m.items),
                    "reviewed_since": m.reviewed,
                }
                for m in self.met_this_week
            ],
            "mocks": self.mocks,
            "last_mock_share": self.last_mock_share,
            "seconds_studied": self.seconds_studied,
            "seconds_mock": self.seconds_mock,
            **(
                {
                    "until": self.until.isoformat(),
                    "days_left": self.days_left,
                    "predicted_recall_on_the_day": round(self.recall_on_the_day, 4),
                    "topic_recall_on_the_day": {k: round(v, 4) for k, v in self.topic_recall_on_the_day.items()},
                }
                if self.until
                else {}
            ),
        }


def _seconds(mock: MockSummary) -> int:
    """A mock's answering time; 0 (noted) when the row holds no usable number of seconds."""
    value = mock.seconds_used
    if value is None:
        return 0
    if isinstance(value, int) and 0 <= value <= MAX_SECONDS:
        return value
    skip(mock.where, f"seconds_used: must be a number of seconds, got {shown(value)}")
    return 0


def build_report(bank: Bank, store: Store, clock: Clock | None = None) -> Report:
    """Where the learner stands now by `clock` (the process's clock when None)."""
    from normkata.record.attempts import KataLog

    answers = store.latest_answers()
    ratings = store.latest_ratings()
    standing = load_standing(bank, store, clock)
    log = KataLog(store)
    katas = [log.status(kata.id) for kata in standing.katas]
    passed = {k.kata for k in katas if k.status == "passed"}
    topics = []
    for topic in bank.topics:
        questions = [q.id for q in bank.questions if q.topic == topic]
        cards = [c.id for c in bank.cards if c.topic == topic]
        covering = [k.id for k in standing.katas if topic in k.topics]
        topics.append(
            TopicProgress(
                topic=topic,
                questions=len(questions),
                seen=sum(q in answers for q in questions),
                correct_latest=sum(answers.get(q, False) for q in questions),
                cards=len(cards),
                cards_rated=sum(c in ratings for c in cards),
                cards_good=sum(ratings.get(c, 0) >= GOOD_RATING for c in cards),
                katas=len(covering),
                katas_passed=sum(k in passed for k in covering),
            )
        )
    due = len(store.due_items(due_cutoff(standing.now)))
    links, _issues = load_links()
    met = lessons(store, links, since=week_start(standing.now))
    from normkata.record.mocks import MockLog

    mocks = MockLog(store).history()
    last = mocks[-1] if mocks else None
    share = (last.made or 0) / last.points if last is not None and last.points else None
    answering = store.answering_ms()  # durations within a year each: a hand-edited 2**63-1 is not a lifetime
    mock_seconds = sum(_seconds(row) for row in mocks)
    studied = round(answering / 1000) + mock_seconds
    report = Report(
        topics,
        due,
        store.counts(),
        katas,
        next_for(standing),
        katas_due=list(standing.katas_due),
        met_this_week=met,
        mocks=len(mocks),
        last_mock_share=share,
        seconds_studied=studied,
        seconds_mock=mock_seconds,
    )
    if standing.deadline is None:
        return report
    from dataclasses import replace

    from normkata.advice.dated import recall_on_the_day
    from normkata.advice.deadline import days_left

    overall, per_topic = recall_on_the_day(standing, standing.deadline)
    return replace(
        report,
        until=standing.deadline.day,
        days_left=days_left(standing.deadline.day, standing.now, standing.clock),
        recall_on_the_day=overall,
        topic_recall_on_the_day=per_topic,
    )
