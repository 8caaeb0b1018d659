"""`normkata quiz`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from normkata.errors import EXIT_INTERRUPTED, InputError
from normkata.ui.options import current_lang, lang_option, seed_option, topic_option

if TYPE_CHECKING:
    from normkata.content.bank import Bank
    from normkata.content.model import Question
    from normkata.practice.session import Practice


@click.command()
@topic_option
@click.option("-n", "count", type=click.IntRange(min=1), default=10, show_default=True, help="How many questions.")
@click.option("--difficulty", type=click.Choice(["easy", "medium", "hard"]), default=None, help="Only this difficulty.")
@seed_option
@click.option(
    "--id",
    "ids",
    multiple=True,
    metavar="ID",
    help="Practise this question (repeatable); the questions come in the order given.",
)
@click.option("--new", "new_only", is_flag=True, help="Only questions you have never answered.")
@lang_option
@click.option("--json", "as_json", is_flag=True, help="Print only a JSON summary (answers read from stdin).")
def quiz(
    topic: str | None,
    count: int,
    difficulty: str | None,
    seed: int | None,
    ids: tuple[str, ...],
    new_only: bool,
    lang: str | None,
    as_json: bool,
) -> None:
    """Answer quiz questions with instant feedback.

    Your first quiz (no --topic) is a diagnostic: one question from each core topic (why we
    normalize, BatchNorm, LayerNorm, RMSNorm, Pre-Norm), easy first. --topic takes a topic's
    id or its title, in English or Chinese. The questions are drawn over different facts: two
    that teach the same thing are not asked together while the topic has others.

    \b
    Examples:
      normkata quiz -n 5 --topic rmsnorm
      normkata quiz --difficulty hard --lang zh
      normkata quiz --id rms-torch-eps-value --id prec-fp16-max
      normkata quiz --topic layernorm --new -n 5
      printf 'A\\nB\\nA\\n' | normkata quiz -n 3 --seed 1 --json
    """
    from normkata.content.bank import check_topic, select
    from normkata.i18n import t
    from normkata.practice.quiz import render_summary, run_quiz
    from normkata.practice.session import open_practice

    lang = current_lang(lang)
    practice = open_practice("quiz", lang, quiet=as_json)
    topic = check_topic(practice.bank, topic, lang)
    if ids:
        from normkata.content.bank import question_named

        questions = [question_named(practice.bank, item_id, lang) for item_id in ids]
    elif topic is None and difficulty is None and not new_only and _diagnostic(practice):
        from normkata.practice.curriculum import diagnostic

        # A first quiz shows where the learner stands: spread over the core topics, easy first.
        questions = diagnostic(practice.bank.questions, count, seed)
    else:
        pool = select(practice.bank.questions, topic=topic, difficulty=difficulty, seed=seed)
        if new_only:
            answered = practice.store.latest_answers()
            pool = [q for q in pool if q.id not in answered]
        questions = _over_facts(practice.bank, pool, count)
    if not questions:
        raise InputError(t("quiz.none", lang))
    result = run_quiz(practice, questions)
    practice.store.end_session(practice.session_id)
    if as_json:
        import json

        click.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    else:
        render_summary(practice, result)
        if not result.interrupted:
            from rich.markup import escape

            from normkata.advice.advisor import next_step_line

            practice.console.print(f"[next]{escape(next_step_line(lang))}[/]")
    if result.interrupted:
        raise click.exceptions.Exit(EXIT_INTERRUPTED)


def _diagnostic(practice: Practice) -> bool:
    """Whether a quiz with no filter is the learner's first: no answer recorded yet, and a bank
    with the core topics a diagnostic spreads over (a test's small bank has none)."""
    from normkata.practice.curriculum import core_topics

    core = core_topics()
    has_core = any(q.topic in core for q in practice.bank.questions)
    return has_core and not practice.store.latest_answers()


def _over_facts(bank: Bank, pool: list[Question], count: int) -> list[Question]:
    """`count` of `pool`, in its order, spread over different facts (normkata.practice.variety)."""
    if len(pool) <= count:
        return pool
    from normkata.content.links import load_links
    from normkata.practice.variety import Facts, corpus_words

    links, _issues = load_links()
    return Facts(bank.questions, links, corpus_words(bank.questions, bank.files)).spread(pool, count)
