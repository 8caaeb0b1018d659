"""`normkata progress export FILE` / `import FILE`: the whole record as one versioned JSON document.

The document holds every row of every table the learner's history lives in, by column name.
Import validates the whole file first (format, version, schema steps, every column's type,
every reference), then merges it in one transaction: a row already present (the same values
in every column but its local id, references compared after they are mapped) is not added
again, so importing a file twice adds nothing the second time. A schedule (`srs`) present on
both sides keeps the one reviewed last. `kata_activity` ("the kata you worked on last") is
not copied: each kata event and attempt added gets its next number, in time order.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from normkata.content.suite_names import cases_by_id
from normkata.record.migrations import MIGRATIONS
from normkata.record.store import Store, iso, utcnow

FORMAT = "normkata-progress"
VERSION = 1

#: Tables in the order they are imported (a table after the tables it refers to), with the
#: columns that refer to another table's id. Kata attempts come before kata events, whose
#: 'review' rows name the last attempt before the round.
TABLES: dict[str, dict[str, str]] = {
    "sessions": {},
    "answers": {"session_id": "sessions"},
    "ratings": {"session_id": "sessions"},
    "review_logs": {},
    "kata_attempts": {},
    "kata_events": {},
    "mock_interviews": {"session_id": "sessions"},
    "mock_answers": {"mock_id": "mock_interviews"},
    "kata_kept": {},
    "fsrs_parameters": {},
}
#: Keyed by item id rather than a row id: merged, not appended.
SCHEDULES = "srs"


class TransferError(Exception):
    """The file cannot be imported; nothing was changed."""


def _columns(store: Store, table: str) -> list[tuple[str, str, bool]]:
    """(name, declared type, NOT NULL) of each column."""
    return [(row[1], row[2].upper(), bool(row[3])) for row in store.db.execute(f"PRAGMA table_info({table})")]


def export_document(store: Store) -> dict[str, Any]:
    tables: dict[str, list[dict[str, Any]]] = {}
    for table in [*TABLES, SCHEDULES]:
        order = "item_id" if table == SCHEDULES else "id"
        tables[table] = [dict(row) for row in store.db.execute(f"SELECT * FROM {table} ORDER BY {order}")]
    applied = [row[0] for row in store.db.execute("SELECT name FROM _migrations ORDER BY rowid")]
    return {"format": FORMAT, "version": VERSION, "schema": applied, "exported_at": iso(utcnow()), "tables": tables}


def export_file(store: Store, path: Path) -> dict[str, int]:
    document = export_document(store)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return {table: len(rows) for table, rows in document["tables"].items()}


def validate(store: Store, document: object) -> dict[str, list[dict[str, Any]]]:
    """The document's tables, once every part of it is proven usable; else a TransferError saying what is wrong."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise TransferError(f'"format" is not "{FORMAT}"')
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > VERSION or version < 1:
        raise TransferError(f"version {version!r} is not one this normkata reads (1 to {VERSION})")
    known = {step.__name__ for step in MIGRATIONS}
    schema = document.get("schema")
    if not isinstance(schema, list) or not all(isinstance(s, str) for s in schema):
        raise TransferError('"schema" is not a list of migration names')
    newer = [s for s in schema if s not in known]
    if newer:
        raise TransferError(f"written by a newer normkata (schema step {newer[0]}): upgrade normkata first")
    tables = document.get("tables")
    if not isinstance(tables, dict):
        raise TransferError('"tables" is missing')
    unknown = set(tables) - {*TABLES, SCHEDULES}
    if unknown:
        raise TransferError(f"unknown table {sorted(unknown)[0]!r}")
    checked: dict[str, list[dict[str, Any]]] = {}
    for table in [*TABLES, SCHEDULES]:
        rows = tables.get(table, [])
        if not isinstance(rows, list):
            raise TransferError(f"{table} is not a list")
        columns = _columns(store, table)
        names = {name for name, _kind, _notnull in columns}
        for number, row in enumerate(rows, start=1):
            where = f"{table} row {number}"
            if not isinstance(row, dict):
                raise TransferError(f"{where} is not an object")
            extra = set(row) - names
            if extra:
                raise TransferError(f"{where}: unknown column {sorted(extra)[0]!r}")
            for name, kind, notnull in columns:
                _check_value(where, name, kind, notnull or name in ("id", "item_id"), row.get(name))
        ids = [row["id"] for row in rows] if table != SCHEDULES else [row["item_id"] for row in rows]
        if len(set(ids)) != len(ids):
            raise TransferError(f"{table}: the same id twice")
        checked[table] = rows
    for table, references in TABLES.items():
        for column, target in references.items():
            present = {row["id"] for row in checked[target]}
            for number, row in enumerate(checked[table], start=1):
                if row.get(column) not in present:
                    raise TransferError(f"{table} row {number}: {column} {row.get(column)!r} is not in {target}")
    for number, row in enumerate(checked[SCHEDULES], start=1):
        try:
            from fsrs import Card

            Card.from_json(row["card_json"])
        except Exception as exc:  # noqa: BLE001 - any failure means the schedule cannot be read
            raise TransferError(f"srs row {number}: card_json is not an FSRS card ({type(exc).__name__})") from None
    return checked


def _check_value(where: str, name: str, kind: str, required: bool, value: object) -> None:
    if value is None:
        if required:
            raise TransferError(f"{where}: {name} is missing")
        return
    ok = {
        "INTEGER": isinstance(value, int) and not isinstance(value, bool),
        "REAL": isinstance(value, (int, float)) and not isinstance(value, bool),
        "TEXT": isinstance(value, str),
    }.get(kind, True)
    if not ok:
        raise TransferError(f"{where}: {name} should be {kind.lower()}, not {type(value).__name__}")


@dataclass
class Added:
    rows: dict[str, int] = field(default_factory=dict)
    schedules_updated: int = 0

    @property
    def nothing(self) -> bool:
        return not any(self.rows.values()) and not self.schedules_updated


def import_document(store: Store, document: object) -> Added:
    """Merge a validated document into the store, all in one transaction."""
    tables = validate(store, document)
    assert isinstance(document, dict)  # validated
    # A file from before m010_case_ids keeps case names in the grade's language: keyed by id here, as
    # that step keys this store's own rows.
    by_name = "m010_case_ids" not in document["schema"]
    added = Added()
    with store.transaction():
        mapped: dict[str, dict[int, int]] = {}
        activity: list[tuple[Any, Any, Any]] = []  # (at, kata, kind) of each kata event and attempt added
        for table, references in TABLES.items():
            columns = [name for name, _kind, _notnull in _columns(store, table) if name != "id"]
            existing = Counter(_key(row, columns) for row in
                               store.db.execute(f"SELECT {', '.join(columns)} FROM {table}"))  # fmt: skip
            ids = {}
            count = 0
            for row in tables[table]:
                values: dict[str, Any] = {name: row.get(name) for name in columns}
                for column, target in references.items():
                    values[column] = mapped[target][row[column]]
                if table == "kata_events" and values["kind"] == "review":
                    values["detail"] = _remap_round(values["detail"], mapped["kata_attempts"])
                if table == "kata_attempts" and by_name and values.get("cases"):
                    values["cases"] = cases_by_id(str(values["kata"]), values["cases"])
                key = _key(values, columns)
                if existing[key] > 0:  # already here: reuse that row's id
                    existing[key] -= 1
                    ids[row["id"]] = _find(store, table, columns, values)
                    continue
                cursor = store.db.execute(
                    f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                    tuple(values[name] for name in columns),
                )
                ids[row["id"]] = int(cursor.lastrowid or 0)
                count += 1
                if table == "kata_events":
                    activity.append((values["at"], values["kata"], values["kind"]))
                elif table == "kata_attempts":
                    activity.append((values["at"], values["kata"], "attempt"))
            mapped[table] = ids
            added.rows[table] = count
        for _at, kata, kind in sorted(activity, key=lambda entry: str(entry[0])):
            store.db.execute("INSERT INTO kata_activity (kata, kind) VALUES (?, ?)", (kata, kind))
        added.schedules_updated = _merge_schedules(store, tables[SCHEDULES])
    return added


def _key(row: Any, columns: list[str]) -> tuple:
    return tuple(row[name] for name in columns)


def _find(store: Store, table: str, columns: list[str], values: dict[str, Any]) -> int:
    """The id of a row with exactly these values (`IS` matches NULL too)."""
    where = " AND ".join(f"{name} IS ?" for name in columns)
    found = store.db.execute(f"SELECT id FROM {table} WHERE {where} ORDER BY id LIMIT 1",
                             tuple(values[name] for name in columns)).fetchone()  # fmt: skip
    return int(found[0])


def _remap_round(detail: str, attempts: dict[int, int]) -> str:
    """A 'review' event names the last attempt before its round: that attempt's id here."""
    try:
        data = json.loads(detail or "{}")
    except ValueError:
        return detail
    after = data.get("after_attempt") if isinstance(data, dict) else None
    if isinstance(after, int) and after in attempts:
        data["after_attempt"] = attempts[after]
        return json.dumps(data)
    return detail


def _merge_schedules(store: Store, rows: list[dict[str, Any]]) -> int:
    """Add the schedules not here; where both sides have one, keep the one reviewed last."""
    changed = 0
    for row in rows:
        here = store.db.execute("SELECT card_json FROM srs WHERE item_id = ?", (row["item_id"],)).fetchone()
        if here is not None and _last_review(here[0]) >= _last_review(row["card_json"]):
            continue
        store.db.execute(
            "INSERT INTO srs (item_id, kind, topic, card_json, due) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(item_id) DO UPDATE SET kind = excluded.kind, topic = excluded.topic, "
            "card_json = excluded.card_json, due = excluded.due",
            (row["item_id"], row["kind"], row["topic"], row["card_json"], row["due"]),
        )
        changed += 1
    return changed


def _last_review(card_json: str) -> str:
    value = json.loads(card_json).get("last_review")
    return str(value) if value else ""


def read_document(path: Path) -> object:
    """The parsed file; OSError and ValueError (bad JSON) are the caller's to report."""
    return json.loads(path.read_text(encoding="utf-8"))
