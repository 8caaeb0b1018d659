"""`normkata interview` and `normkata review`: ratings, FSRS schedules, what comes back."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from normkata.practice.srs import when
from tests.conftest import FIXTURES, invoke


@pytest.fixture(autouse=True)
def mini_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(FIXTURES / "good"))


def test_interview_shows_key_points_and_records_rating(runner, db) -> None:
    result = invoke(runner, ["interview"], "they are small\n\nx\n3\n")
    assert result.exit_code == 0
    assert "• small" in result.stdout and "They are small." in result.stdout and "? Why?" in result.stdout
    assert "Type 1, 2, 3 or 4." in result.stdout
    assert "1 card(s) rated and saved." in result.stdout
    rating = db.execute("SELECT item_id, response, rating FROM ratings").fetchone()
    assert tuple(rating) == ("mini-card", "they are small", 3)
    schedule = db.execute("SELECT kind, topic, due, card_json FROM srs WHERE item_id = 'mini-card'").fetchone()
    assert schedule["kind"] == "card" and schedule["topic"] == "mini"
    assert json.loads(schedule["card_json"])["due"].startswith(schedule["due"][:16])


def test_interview_shows_each_follow_ups_key_points(runner) -> None:
    result = invoke(runner, ["interview"], "they are small\n\n3\n")
    assert result.exit_code == 0
    after = result.stdout[result.stdout.index("? Why?") :]
    assert after.splitlines()[1].strip() == "• smallness keeps them tidy"


def test_interview_eof_before_rating_saves_nothing(runner, db) -> None:
    result = invoke(runner, ["interview"], "an answer\n")
    assert result.exit_code == 0
    assert "0 card(s) rated and saved." in result.stdout
    assert db.execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 0


def test_interview_unknown_topic(runner) -> None:
    result = invoke(runner, ["interview", "--topic", "zzz"], "")
    assert result.exit_code == 2 and "--topic: unknown topic 'zzz'" in result.stderr


def test_review_serves_missed_question_then_nothing(runner, db) -> None:
    assert "Nothing to review yet" in invoke(runner, ["review"], "").stdout
    invoke(runner, ["quiz", "-n", "5", "--seed", "0", "--json"], "\n" * 5)  # all five missed
    due = db.execute("SELECT COUNT(*) FROM srs WHERE kind = 'question'").fetchone()[0]
    assert due == 5
    result = invoke(runner, ["review", "-n", "1"], "zzz\n")
    assert result.exit_code == 0
    assert "1 of the 5 item(s) due" in result.stdout and "Question 1/1" in result.stdout


def test_review_answer_moves_the_schedule(runner, db) -> None:
    invoke(runner, ["quiz", "-n", "1", "--seed", "0", "--json"], "\n")
    item = db.execute("SELECT item_id, due FROM srs").fetchone()
    answer = {
        "mini-single": "B",
        "mini-multiple": "AC",
        "mini-tf": "t",
        "mini-numeric": "4",
        "mini-order": "BCA",
    }
    result = invoke(runner, ["review"], answer[item["item_id"]] + "\n")
    assert "✓ Correct." in result.stdout
    later = db.execute("SELECT due FROM srs WHERE item_id = ?", (item["item_id"],)).fetchone()["due"]
    assert later > item["due"]
    assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 2


def test_when_is_human() -> None:
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert when((now + timedelta(seconds=20)).isoformat(), "en", now) == "now"
    assert when((now + timedelta(minutes=10)).isoformat(), "en", now) == "in 10 min"
    assert when((now + timedelta(days=3)).isoformat(), "en", now) == "in 3 days"
    assert when((now + timedelta(hours=2)).isoformat(), "zh", now) == "2 小时后"


def test_whole_prenorm_interview_deck(runner, db, monkeypatch) -> None:
    """The bundled deck end to end, as a learner preparing Pre-Norm questions would take it."""
    monkeypatch.delenv("NORMKATA_QUIZZES")
    from normkata.content.bank import load_bank

    deck = [c for c in load_bank().cards if c.topic == "prenorm"]
    stdin = "".join(f"my answer {i}\n\n{1 + i % 4}\n" for i in range(len(deck)))
    result = invoke(runner, ["interview", "--topic", "prenorm", "-n", str(len(deck))], stdin)
    assert result.exit_code == 0
    assert f"{len(deck)} card(s) rated and saved." in result.stdout
    rated = {r["item_id"] for r in db.execute("SELECT item_id FROM ratings")}
    assert rated == {c.id for c in deck}


def test_a_pasted_second_line_belongs_to_the_answer(runner, db) -> None:
    result = invoke(runner, ["interview"], "they are small\nand tidy\n\n4\n")
    assert result.exit_code == 0 and "Type 1, 2, 3 or 4." not in result.stdout
    assert tuple(db.execute("SELECT response, rating FROM ratings").fetchone()) == ("they are small\nand tidy", 4)


def test_interview_by_id_and_an_unknown_id(runner, db) -> None:
    assert invoke(runner, ["interview", "--id", "mini-card"], "an answer\n\n2\n").exit_code == 0
    assert db.execute("SELECT item_id, rating FROM ratings").fetchone()[:] == ("mini-card", 2)
    result = invoke(runner, ["interview", "--id", "mini-crad"], "")
    assert (
        result.exit_code == 2
        and "--id: no interview card 'mini-crad' in the bank (did you mean mini-card?)" in result.stderr
    )


def test_review_ends_with_a_summary_and_no_dangling_question(runner, db) -> None:
    invoke(runner, ["quiz", "-n", "5", "--seed", "0", "--json"], "\n" * 5)  # five missed: five due
    invoke(runner, ["interview"], "no idea\n\n1\n")  # the card, rated Again: due too
    result = invoke(runner, ["review"], "B\nzzz\n")  # two answers, then the input ends
    assert result.exit_code == 0
    assert result.stdout.count("Question ") == 2 and "Card 1/" not in result.stdout  # nothing shown unanswered
    assert "Reviewed 2 of 6 due item(s)." in result.stdout
    assert "Questions: " in result.stdout and " of 2 right." in result.stdout
    # Not "Next item due: now." and nothing to do: the Next line says what is due.
    assert "Next item due: now" not in result.stdout
    assert "Next: normkata review" in result.stdout
    logs = db.execute("SELECT COUNT(*), COUNT(duration_ms) FROM review_logs").fetchone()
    assert tuple(logs) == (8, 8)  # 5 quiz answers, 1 rating, 2 reviews: each logged with its duration


def test_review_summary_counts_cards_by_rating(runner) -> None:
    invoke(runner, ["interview"], "no idea\n\n1\n")
    result = invoke(runner, ["review"], "small\n\n3\n")
    assert "Reviewed all 1 due item(s)." in result.stdout and "Cards: 1 rated (Good 1)." in result.stdout


def test_right_first_answers_are_not_back_the_same_evening(runner) -> None:
    """one learning step; the summary says when things come back; an empty review
    offers more practice instead of a dead end."""
    missed = invoke(runner, ["quiz", "-n", "5", "--seed", "4", "--json"], "\n" * 5).stdout
    order = [a["id"] for a in json.loads(missed)["answers"]]
    right = {"mini-single": "B", "mini-multiple": "AC", "mini-tf": "t", "mini-numeric": "4", "mini-order": "BCA"}
    result = invoke(runner, ["--lang", "en", "review"], "".join(right[i] + "\n" for i in order))
    assert "Reviewed all 5 due item(s)." in result.stdout
    assert "Comes back in normkata review: 5 in 1 day." in result.stdout
    assert "Next: " in result.stdout
    again = invoke(runner, ["review"], "")
    assert "Nothing is due. Next item due: in 1 day." in again.stdout
    assert "For more practice now: normkata " in again.stdout


def test_a_quiz_summary_says_when_its_questions_come_back(runner) -> None:
    result = invoke(runner, ["quiz", "--id", "mini-single", "--id", "mini-tf"], "B\nf\n")
    assert "Comes back in normkata review: 1 now, 1 in 2 days." in result.stdout


def test_enter_alone_skips_a_card_as_the_prompt_says(runner, db) -> None:
    """ "Enter alone skips": the key points and the model answer are shown, no rating is asked or kept."""
    result = invoke(runner, ["interview"], "\n")
    assert result.exit_code == 0, result.output
    assert "• small" in result.stdout and "Skipped: not rated, it comes back as it was." in result.stdout
    assert "How did you do?" not in result.stdout
    assert "0 card(s) rated and saved." in result.stdout
    assert db.execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 0
