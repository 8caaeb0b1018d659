"""A mock interview as steps any door can drive: the next question while time is left, an answer
kept as it is given, the debrief's scoring of each card by the key points ticked, the end.

Which cards and in what order, and how ticks become a rating, are normkata.practice.mock's; the
rows are normkata.record.mocks'. `normkata mock` asks and shows; this module decides and keeps.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from normkata.errors import InputError
from normkata.i18n import t

if TYPE_CHECKING:
    from datetime import date

    from normkata.content.bank import Bank
    from normkata.practice.mock import Asked
    from normkata.record.mocks import MockLog
    from normkata.record.store import Store

#: A question is not started with less time than this left: "0:00 left" is no time to answer.
MIN_SECONDS_TO_ASK = 30


@dataclass
class Given:
    """An answer given in the mock, and its row in mock_answers."""

    asked: Asked
    text: str
    seconds: int
    row: int


@dataclass
class ToScore:
    """A card's answer at the debrief, with the answers to its follow-ups (shown, not ticked)."""

    answer: Given
    follow_ups: list[Given] = field(default_factory=list)


@dataclass(frozen=True)
class Scored:
    rating: int
    made: int
    points: int


class MockSession:
    """One mock interview on `store`, session `session_id`: planned at `start`, asked through
    `questions`, kept by `answer`, scored by `score`, closed by `finish` (also after Ctrl-C)."""

    def __init__(self, bank: Bank, store: Store, session_id: int, lang: str) -> None:
        from normkata.record.mocks import MockLog

        self.bank, self.store, self.session_id, self.lang = bank, store, session_id, lang
        self.log: MockLog = MockLog(store)
        self.given: list[Given] = []
        self.mock_id: int | None = None
        self.planned: list[Asked] = []
        self.interview_day: date | None = None
        self.days_left: int | None = None
        self._questions: Iterator[Asked] = iter(())
        self._started = 0.0
        self._deadline = 0.0

    def start(self, minutes: int, topic: str | None) -> None:
        """Plan the questions (the cards predicted lowest on the interview day first, when a date is
        set; one kernels card once kernels were studied) and open the mock's row; the clock starts."""
        from normkata.advice.standing import load_standing
        from normkata.practice.mock import KERNEL_TOPIC, clock, interview_order, questions, studied_kernels

        cards = [c for c in self.bank.cards if topic is None or c.topic == topic]
        standing = load_standing(self.bank, self.store)
        strength = {i.id: i.strength for i in standing.items if i.kind == "card"}
        if standing.deadline is not None:
            from normkata.advice.dated import item_recall_on_the_day
            from normkata.advice.deadline import days_left

            recall = item_recall_on_the_day(standing, standing.deadline)
            strength = {k: v for k, v in recall.items() if k in strength}
            self.interview_day = standing.deadline.day
            self.days_left = days_left(standing.deadline.day, standing.now)
        must = KERNEL_TOPIC if topic is None and studied_kernels(self.bank, self.store) else None
        self.planned = interview_order(cards, minutes, strength, must)
        if not self.planned:
            raise InputError(t("card.none", self.lang))
        self.mock_id = self.log.start(self.session_id, topic, minutes)
        self._questions = questions(cards, minutes, strength, must)
        self._started = clock()
        self._deadline = self._started + minutes * 60

    def seconds_left(self) -> float:
        from normkata.practice.mock import clock

        return self._deadline - clock()

    def next_question(self, left: float) -> Asked | None:
        """The next question with `left` seconds to go (one reading of the clock, which the door also
        shows), or None when time is up (less than MIN_SECONDS_TO_ASK left) or none is left."""
        if left < MIN_SECONDS_TO_ASK:
            return None
        return next(self._questions, None)

    def answer(self, asked: Asked, text: str, seconds: int) -> Given:
        """Keep an answer as it is given: nothing said is lost to a Ctrl-C later."""
        assert self.mock_id is not None, "start the mock first"
        position = len(self.given) + 1
        row = self.log.answer(self.mock_id, position, asked.card.id, asked.follow_up, text, seconds, asked.points)
        given = Given(asked, text, seconds, row)
        self.given.append(given)
        return given

    def to_score(self) -> list[ToScore]:
        """Each card answered, in the order asked, with its follow-ups' answers."""
        cards = [ToScore(g) for g in self.given if g.asked.follow_up is None]
        for card in cards:
            card.follow_ups = [
                g for g in self.given if g.asked.card.id == card.answer.asked.card.id and g.asked.follow_up is not None
            ]
        return cards

    def score(self, card: ToScore, made: list[int]) -> Scored:
        """The key points made (numbers from 1) as the card's FSRS rating, saved with the answer."""
        from normkata.practice.mock import rating_for
        from normkata.practice.srs import schedule

        answer, asked = card.answer, card.answer.asked
        points = len(asked.card.key_points)
        rating = rating_for(len(made), points)
        review = schedule(self.store, asked.card.id, rating, duration_ms=answer.seconds * 1000)
        self.log.score(answer.row, self.session_id, asked.card.id, asked.card.topic, answer.text, made, review)
        return Scored(rating, len(made), points)

    def finish(self) -> int | None:
        """The answering time, recorded once; a mock with no answer is discarded and gives None."""
        from normkata.practice.mock import clock

        if self.mock_id is None:
            return None
        if not any(g.text.strip() for g in self.given):
            self.log.discard(self.mock_id)
            return None
        used = min(round(clock() - self._started), self.log.minutes(self.mock_id) * 60)
        self.log.finish(self.mock_id, used)
        return used
