"""Short quizzes spread over different facts; the first quiz spread over the core topics."""

from __future__ import annotations

import itertools
import json

import pytest

from normkata.content.bank import load_bank, select
from normkata.content.links import load_links
from normkata.practice.curriculum import core_topics, diagnostic
from normkata.practice.variety import SAME_FACT, Facts
from tests.conftest import invoke

#: Three LayerNorm questions on torch's unbiased default (x.var, x.std): a `quiz -n 4 -t
#: layernorm` asked all three. The first two teach only that; the third also eps's place.
UNBIASED = {"ln-torch-var-default", "ln-bug-doc-var", "ln-bug-annotated-std"}


@pytest.fixture(scope="module")
def facts() -> Facts:
    links, _issues = load_links()
    return Facts(load_bank().questions, links)


def test_same_fact_pairs_read_off_the_bank(facts: Facts) -> None:
    # Linked to one named mistake in katas/misconceptions.yaml: one fact.
    assert facts.similarity("ln-torch-var-default", "ln-bug-doc-var") == 1.0
    # Not linked, but the same swap of shapes (γ/β vs the statistics), worded alike.
    assert facts.similarity("ln-bug-gamma-shape", "ln-bug-stat-shape") >= SAME_FACT
    # Two facts that share words (normalized_shape): the closest pair kept apart.
    assert facts.similarity("ln-tuple-shape", "ln-param-count-tuple") < SAME_FACT
    assert facts.similarity("ln-example-value", "ln-gamma-gradient-value") < SAME_FACT


def test_four_layernorm_questions_never_ask_one_fact_twice(facts: Facts) -> None:
    bank = load_bank()
    for seed in range(200):
        chosen = facts.spread(select(bank.questions, topic="layernorm", seed=seed), 4)
        ids = {q.id for q in chosen}
        assert len(ids) == 4
        assert len(ids & UNBIASED) <= 2, seed
        assert not {"ln-torch-var-default", "ln-bug-doc-var"} <= ids, seed
        for a, b in itertools.combinations(ids, 2):
            assert facts.similarity(a, b) < SAME_FACT, (seed, a, b)


def test_a_topic_quiz_is_spread_through_the_cli(runner) -> None:
    for seed in range(5):
        result = invoke(runner, ["quiz", "-n", "4", "-t", "layernorm", "--seed", str(seed), "--json"], "\n" * 4)
        ids = {a["id"] for a in json.loads(result.stdout)["answers"]}
        assert len(ids) == 4 and not {"ln-torch-var-default", "ln-bug-doc-var"} <= ids


def test_a_long_quiz_still_asks_every_question_once(facts: Facts) -> None:
    bank = load_bank()
    pool = select(bank.questions, topic="layernorm", seed=1)
    assert sorted(q.id for q in facts.spread(pool, len(pool))) == sorted(q.id for q in pool)


def test_quiz_new_asks_only_questions_never_answered(runner) -> None:
    first = json.loads(invoke(runner, ["quiz", "-t", "rmsnorm", "-n", "5", "--seed", "1", "--json"], "\n" * 5).stdout)
    second = json.loads(invoke(runner, ["quiz", "-t", "rmsnorm", "--new", "-n", "20", "--json"], "\n" * 20).stdout)
    asked = {a["id"] for a in first["answers"]}
    rmsnorm = sum(q.topic == "rmsnorm" for q in load_bank().questions)
    assert second["asked"] == min(20, rmsnorm - 5) and not asked & {a["id"] for a in second["answers"]}


@pytest.mark.parametrize("n", [3, 4, 5, 10])
def test_the_diagnostic_spans_at_least_three_core_topics(n: int) -> None:
    questions = load_bank().questions
    for seed in [None, *range(20)]:
        topics = {q.topic for q in diagnostic(questions, n, seed)}
        assert len(topics & set(core_topics())) >= 3, (n, seed)


def test_the_first_quiz_is_the_diagnostic_even_after_a_kata_or_cards(runner) -> None:
    """in two of three fresh homes the first evening's quizzes covered 1 and 2 core
    topics: a kata or cards first, and the advice went on to one topic's quiz."""
    invoke(runner, ["kata", "rmsnorm"])
    invoke(runner, ["interview", "-n", "1"], "an answer\n\n3\n")
    assert json.loads(invoke(runner, ["next", "--json"]).stdout)["command"] == "normkata quiz -n 5"
    result = invoke(runner, ["quiz", "-n", "5", "--json"], "\n" * 5)
    topics = {a["id"] for a in json.loads(result.stdout)["answers"]}
    bank = load_bank()
    covered = {q.topic for q in bank.questions if q.id in topics}
    assert covered == set(core_topics())


def test_a_plan_never_cuts_the_diagnostic_below_three_questions(runner) -> None:
    steps = json.loads(invoke(runner, ["plan", "--minutes", "2", "--json"]).stdout)["steps"]
    assert steps[0]["command"] == "normkata quiz -n 3"  # 2 minutes: three questions, three core topics
    steps = json.loads(invoke(runner, ["plan", "--minutes", "1", "--json"]).stdout)["steps"]
    assert all(not s["command"].startswith("normkata quiz -n") for s in steps)
