"""The bank as the learner sees it (texts tidied, precision stated), as JSON or as an Anki deck."""

from __future__ import annotations

import html
import zlib
from pathlib import Path
from typing import Any

from normkata.content.bank import Bank
from normkata.content.model import Card, Question, letter

EXPORT_VERSION = 1


def _source(source: str, lang: str) -> dict[str, str]:
    from normkata.practice.quiz import source_label

    return {"id": source, "title": source_label(source, lang)}


def _answer_value(question: Question) -> object:
    if question.type in ("multiple", "order"):
        return "".join(question.answer)  # type: ignore[arg-type]
    return question.answer


def question_dict(question: Question, lang: str) -> dict[str, Any]:
    from normkata.practice.answers import expected_text, precision_hint

    prompt = question.prompt.in_(lang)
    hint = precision_hint(question, lang)
    return {
        "id": question.id,
        "topic": question.topic,
        "type": question.type,
        "difficulty": question.difficulty,
        "prompt": f"{prompt}\n{hint}" if hint else prompt,
        "choices": [choice.in_(lang) for choice in question.choices],
        "answer": _answer_value(question),
        "answer_text": expected_text(question, lang),
        "explanation": question.explanation.in_(lang),
        "source": _source(question.source, lang),
        "tags": list(question.tags),
    }


def card_dict(card: Card, lang: str) -> dict[str, Any]:
    return {
        "id": card.id,
        "topic": card.topic,
        "difficulty": card.difficulty,
        "prompt": card.prompt.in_(lang),
        "key_points": [point.in_(lang) for point in card.key_points],
        "answer": card.answer.in_(lang),
        "follow_ups": [follow_up.in_(lang) for follow_up in card.follow_ups],
        "follow_up_key_points": [[point.in_(lang) for point in points] for points in card.follow_up_points],
        "source": _source(card.source, lang),
        "tags": list(card.tags),
    }


def bank_dict(bank: Bank, lang: str) -> dict[str, Any]:
    """Everything a learner reads in `lang`, one JSON-ready object."""
    return {
        "export_version": EXPORT_VERSION,
        "lang": lang,
        "topics": [{"id": t.id, "title": t.title.in_(lang)} for t in bank.topics.values()],
        "questions": [question_dict(q, lang) for q in bank.questions],
        "cards": [card_dict(c, lang) for c in bank.cards],
    }


# -- Anki ----------------------------------------------------------------------------------------


def _html(text: str) -> str:
    """Plain text as Anki HTML: indented lines (code) in <pre>, other lines joined by <br>."""
    blocks: list[str] = []
    code: list[str] = []
    for line in text.split("\n"):
        if line.startswith("    "):
            code.append(html.escape(line[4:]))
            continue
        if code:
            blocks.append("<pre>" + "\n".join(code) + "</pre>")
            code = []
        blocks.append(html.escape(line))
    if code:
        blocks.append("<pre>" + "\n".join(code) + "</pre>")
    return "<br>".join(blocks)


def _stable_id(text: str) -> int:
    """A 31-bit id that stays the same from one export to the next (Anki merges on it)."""
    return (zlib.crc32(text.encode("utf-8")) & 0x7FFFFFFF) | 1 << 30


def write_anki(bank: Bank, lang: str, path: Path) -> int:
    """Write `bank` as an .apkg deck with one note per question and card; returns the note count."""
    import genanki  # type: ignore[import-untyped]

    from normkata.i18n import t

    model = genanki.Model(
        _stable_id(f"normkata-model-{lang}"),
        f"normkata ({lang})",
        fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Source"}],
        templates=[
            {
                "name": "Card",
                "qfmt": "{{Front}}",
                "afmt": '{{FrontSide}}<hr id="answer">{{Back}}<p class="source">{{Source}}</p>',
            }
        ],
        css=".card { font-family: sans-serif; text-align: left; } pre { text-align: left; } .source { color: #888; }",
    )
    deck = genanki.Deck(_stable_id(f"normkata-deck-{lang}"), t("export.deck", lang))
    for question in bank.questions:
        data = question_dict(question, lang)
        choices = "".join(f"<br><b>{letter(i)})</b> {html.escape(c)}" for i, c in enumerate(data["choices"]))
        front = _html(data["prompt"]) + choices
        back = (
            f"<b>{t('export.answer', lang)}:</b> {html.escape(data['answer_text'])}<br><br>"
            f"<b>{t('export.explanation', lang)}:</b> {_html(data['explanation'])}"
        )
        deck.add_note(_note(genanki, model, question.id, lang, front, back, data["source"]["title"], question.topic))
    for card in bank.cards:
        data = card_dict(card, lang)
        points = "".join(f"<li>{html.escape(p)}</li>" for p in data["key_points"])
        back = f"<ul>{points}</ul>{_html(data['answer'])}{_follow_ups_html(data, lang)}"
        front = _html(data["prompt"])
        deck.add_note(_note(genanki, model, card.id, lang, front, back, data["source"]["title"], card.topic))
    path.parent.mkdir(parents=True, exist_ok=True)
    genanki.Package(deck).write_to_file(str(path))
    return len(deck.notes)


def _follow_ups_html(card: dict[str, Any], lang: str) -> str:
    """Each follow-up with the key points its answer should make, as `interview` shows them."""
    from normkata.i18n import t

    if not card["follow_ups"]:
        return ""
    points = card["follow_up_key_points"]
    items = "".join(
        f"<li>{html.escape(question)}<ul>"
        + "".join(f"<li>{html.escape(p)}</li>" for p in (points[i] if i < len(points) else []))
        + "</ul></li>"
        for i, question in enumerate(card["follow_ups"])
    )
    return f"<br><br><b>{html.escape(t('card.follow_ups', lang))}</b><ul>{items}</ul>"


def _note(genanki: Any, model: Any, item_id: str, lang: str, front: str, back: str, source: str, topic: str) -> Any:
    return genanki.Note(
        model=model,
        fields=[front, back, html.escape(source)],
        guid=genanki.guid_for(item_id, lang),
        tags=[f"normkata::{topic}", f"normkata::{item_id}"],
    )
