"""`normkata content export`: the bank exactly as the learner sees it, as JSON and as an Anki deck."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

from normkata.content.bank import load_bank
from normkata.practice.answers import expected_text, precision_hint
from normkata.practice.quiz import source_label
from tests.conftest import invoke

BANK = load_bank()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_json_export_is_the_bank_as_shown(runner, lang: str) -> None:
    result = invoke(runner, ["content", "export", "--format", "json", "--lang", lang])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["lang"] == lang and data["export_version"] == 1
    assert [q["id"] for q in data["questions"]] == [q.id for q in BANK.questions]
    assert [c["id"] for c in data["cards"]] == [c.id for c in BANK.cards]
    for exported, question in zip(data["questions"], BANK.questions, strict=True):
        hint = precision_hint(question, lang)
        assert exported["prompt"] == question.prompt.in_(lang) + (f"\n{hint}" if hint else "")
        assert exported["choices"] == [c.in_(lang) for c in question.choices]
        assert exported["explanation"] == question.explanation.in_(lang)
        assert exported["answer_text"] == expected_text(question, lang)
        assert exported["source"] == {"id": question.source, "title": source_label(question.source, lang)}
    for exported, card in zip(data["cards"], BANK.cards, strict=True):
        assert exported["key_points"] == [point.in_(lang) for point in card.key_points]
        assert exported["answer"] == card.answer.in_(lang)
        points = exported["follow_up_key_points"]  # one list per follow-up, as the debrief shows them
        assert len(points) == len(exported["follow_ups"]) and all(points)


def test_json_round_trips_through_a_file(runner, tmp_path: Path) -> None:
    out = tmp_path / "bank.zh.json"
    result = invoke(runner, ["content", "export", "--lang", "zh", "--out", str(out)])
    assert result.exit_code == 0 and result.stdout == ""
    assert "已将" in result.stderr
    text = out.read_text(encoding="utf-8")
    data = json.loads(text)
    assert json.dumps(data, ensure_ascii=False, indent=2) + "\n" == text
    answers = {q["id"]: q["answer"] for q in data["questions"]}
    for question in BANK.questions:
        expected = "".join(question.answer) if question.type in ("multiple", "order") else question.answer  # type: ignore[arg-type]
        assert answers[question.id] == expected


def test_anki_deck_opens_with_every_note(runner, tmp_path: Path) -> None:
    out = tmp_path / "deck" / "normkata-zh.apkg"
    result = invoke(runner, ["content", "export", "--format", "anki", "--lang", "zh", "--out", str(out)])
    assert result.exit_code == 0, result.output
    with zipfile.ZipFile(out) as deck:
        assert "collection.anki2" in deck.namelist()
        (tmp_path / "collection.anki2").write_bytes(deck.read("collection.anki2"))
    connection = sqlite3.connect(tmp_path / "collection.anki2")
    try:
        notes = connection.execute("SELECT flds, tags FROM notes").fetchall()
        cards = connection.execute("SELECT COUNT(*) FROM cards").fetchone()[0]
    finally:
        connection.close()
    assert len(notes) == cards == len(BANK.questions) + len(BANK.cards)
    fields = {tags.split("::")[-1].strip(): flds.split("\x1f") for flds, tags in notes}
    front, back, source = fields["rms-torch-eps-value"]
    assert "nn.RMSNorm(d)" in front and "3 位有效数字" in front
    assert "1.19e-7" in back and source == "超出源文档的补充内容"
    front, back, source = fields["bn-bug-plain-tensors"]
    assert "<pre>" in front and "register_buffer" in front + back
    assert source == "Normalization 笔记：LayerNorm 与 BatchNorm"
    _front, back, _source = fields["card-bwd-batchnorm-by-hand"]  # follow-ups with their key points
    assert "面试官可能的追问" in back and "<li>评估模式下 dx 是什么？<ul><li>" in back and "running_var + eps" in back


def test_anki_without_out_writes_a_deck_named_for_its_language(runner, tmp_path: Path, monkeypatch) -> None:
    """It refused without --out, though the name is obvious (`> deck.apkg` left a 0-byte file)."""
    monkeypatch.chdir(tmp_path)
    result = invoke(runner, ["content", "export", "--format", "anki", "--lang", "zh"])
    assert result.exit_code == 0, result.output
    assert zipfile.is_zipfile(tmp_path / "normkata-zh.apkg")
    assert "normkata-zh.apkg" in result.stderr and result.stdout == ""


def test_quiz_by_id_in_the_order_given(runner) -> None:
    args = ["quiz", "--id", "prec-fp16-max", "--id", "rms-torch-eps-value", "--json"]
    result = invoke(runner, args, "65504\n2^-23\n")
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert [a["id"] for a in summary["answers"]] == ["prec-fp16-max", "rms-torch-eps-value"]
    assert summary["correct"] == 2


def test_quiz_unknown_id_suggests_close_ones(runner) -> None:
    result = invoke(runner, ["quiz", "--id", "prec-fp16-maks"])
    assert result.exit_code == 2
    assert "no question 'prec-fp16-maks'" in result.stderr and "prec-fp16-max" in result.stderr
