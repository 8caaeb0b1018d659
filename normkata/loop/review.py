"""What a review serves, in the order it serves it, for any door: `normkata review` asks the items
one by one; the MCP server's `due` lists them for an assistant to ask with its tools.

Questions and cards FSRS has due (rows whose item left the bank are skipped), then the katas due to
be written again (each takes minutes, a question seconds). With an interview date, the items
predicted lowest on that day come first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import date

    from normkata.content.bank import Bank
    from normkata.content.katas import Kata
    from normkata.content.model import Card, Question
    from normkata.record.store import Scheduled, Store


@dataclass(frozen=True)
class DueNow:
    items: list[Question | Card | Kata]  # in the order a review serves them
    due: dict[str, str]  # item id (a kata's own id) -> when it came due, ISO
    interview_day: date | None


def due_now(bank: Bank, store: Store) -> DueNow:
    from normkata.advice.deadline import load
    from normkata.practice.srs import due_cutoff

    deadline = load(store)
    day = deadline.day if deadline else None
    rows = on_the_day_first(store, store.due_items(due_cutoff()), day)
    items: list[Question | Card | Kata] = [item for row in rows if row.kind != "kata" and (item := _item(bank, row))]
    katas = [kata for row in rows if row.kind == "kata" and (kata := _due_kata(row))]
    due = {str(row.item_id): str(row.due) for row in rows}
    due.update({kata.id: due.get(f"kata:{kata.id}", "") for kata in katas})
    return DueNow([*items, *katas], due, day)


def on_the_day_first(store: Store, rows: list[Scheduled], day: date | None) -> list[Scheduled]:
    """The due rows, lowest predicted recall on the interview day first (as they were without a date)."""
    if day is None:
        return rows
    recall = recall_on(store, day, [row.item_id for row in rows])
    return sorted(rows, key=lambda row: recall.get(row.item_id, 0.0))


def recall_on(store: Store, day: date, item_ids: list[str]) -> dict[str, float]:
    """Each item's predicted recall at the interview's hour on `day`."""
    from normkata.advice.deadline import interview_moment
    from normkata.practice.srs import retrievability
    from normkata.record.store import utcnow

    wanted = set(item_ids)
    cards = {row.item_id: row.card_json for row in store.srs_states() if row.item_id in wanted}
    return retrievability(cards, interview_moment(day, utcnow()), store.fsrs_parameters())


def _item(bank: Bank, row: Scheduled) -> Question | Card | None:
    """The bank item a schedule row points at; None when the bank no longer has it."""
    if row.kind == "question":
        return bank.question(row.item_id)
    return bank.card(row.item_id)


def _due_kata(row: Scheduled) -> Kata | None:
    """The kata a schedule row points at; None when the catalog no longer has it."""
    from normkata.content.katas import load_katas
    from normkata.workbench.due import kata_of

    return next((k for k in load_katas()[0] if k.id == kata_of(row.item_id)), None)
