"""`normkata progress export FILE` / `import FILE`: the whole record as one versioned JSON document.

The document holds every row of every table the learner's history lives in, by column name.
A file to import is someone else's data: it is read only when it is a regular file within
MAX_FILE_BYTES and MAX_DEPTH, and every value of it is checked for what it means
(normkata.record.fields: times aware and not in the future, numbers finite and in range, JSON
columns that parse, FSRS cards and parameters fsrs can use, references that resolve) before
anything is written. The first problem refuses the whole file, naming the field
(`srs[3].card_json.stability: ...`), and nothing changes.

The checked rows are then merged in one transaction: a row already present (the same values in
every column but its local id, references compared after they are mapped) is not added again,
so importing a file twice adds nothing the second time; each table's rows are matched through
one dictionary, so a re-import costs what the first did. Attempts added are marked `imported`:
they count on the dashboard, never as a pass that opens a solution here. `kata_activity` ("the
kata you worked on last") is not copied: each kata event and attempt added gets its next number,
in time order.

Settings (the interview date and its minutes a day) are merged by name: one only in the file is
added, one on both sides takes the file's value when the file set it later. A forgotten setting
is a dated empty row (record.store.FORGOTTEN), so forgetting is merged the same way. Schedules (`srs`)
are merged by item. The file's clock is not trusted beyond what the file can
prove: an item only in the file is added; for an item on both sides the local schedule stays
unless the file's review log holds a review of it later than every local one, and the file's
card claims no review later than that log. A schedule "reviewed" later than now is refused with
the rest of the file.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from normkata.content.suite_names import cases_by_id
from normkata.files import Refused, read_file
from normkata.record.fields import COLUMNS, check_row
from normkata.record.migrations import MIGRATIONS
from normkata.record.store import Store, iso, utcnow
from normkata.record.values import BadValue, check_nesting, moment, shown

FORMAT = "normkata-progress"
#: 2 added the learner's settings; a version 1 file (without them) is read as ever.
VERSION = 2

#: The largest file read: a year of daily practice exports to a few megabytes.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: A document nests four levels (itself, its tables, a table's rows, a row); JSON columns are text.
#: A little room above that lets a misplaced list be named as the field it is in.
MAX_DEPTH = 8

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
#: The learner's settings (the interview date `plan --until` keeps), keyed by name: merged, the
#: later setting winning.
SETTINGS = "settings"
#: The tables merged by a key of their own rather than appended, and that key.
KEYED = {SCHEDULES: "item_id", SETTINGS: "name"}
#: This machine's mark on attempts it did not grade: never read from a file, never compared.
IMPORTED = "imported"
#: A card's last review and the log's entry for it are written a fraction of a second apart.
SAME_REVIEW = timedelta(seconds=1)


class TransferError(Exception):
    """The file cannot be imported; nothing was changed."""


@dataclass(frozen=True)
class Row:
    """One row of the file, every value checked: `values` by column, as they will be stored."""

    id: int | str  # the file's id (an item id for a schedule)
    values: dict[str, Any]


@dataclass(frozen=True)
class Checked:
    schema: list[str]
    tables: dict[str, list[Row]]


def _columns(store: Store, table: str) -> list[str]:
    return [row[1] for row in store._conn.execute(f"PRAGMA table_info({table})")]


# -- export --------------------------------------------------------------------------------------


def export_document(store: Store) -> dict[str, Any]:
    tables: dict[str, list[dict[str, Any]]] = {}
    for table in [*TABLES, *KEYED]:
        order = KEYED.get(table, "id")
        tables[table] = [dict(row) for row in store._conn.execute(f"SELECT * FROM {table} ORDER BY {order}")]
    applied = [row[0] for row in store._conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
    return {"format": FORMAT, "version": VERSION, "schema": applied, "exported_at": iso(utcnow()), "tables": tables}


def export_file(store: Store, path: Path) -> dict[str, int]:
    document = export_document(store)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return {table: len(rows) for table, rows in document["tables"].items()}


# -- reading -------------------------------------------------------------------------------------


def read_document(path: Path) -> object:
    """The parsed file; a TransferError when it is no file to read (a FIFO, a device, too large, too
    deeply nested, not UTF-8, not JSON); OSError when it cannot be opened, for the caller to report.

    Opened without blocking (a FIFO answers at once) and sized on its descriptor before a byte is read
    (normkata.files).
    """
    try:
        data = read_file(path, MAX_FILE_BYTES, follow_links=True)
    except Refused as exc:
        raise TransferError(exc.what("en")) from None  # said in English, as the file's other faults
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TransferError(f"not UTF-8 (byte {exc.start})") from None
    try:
        check_nesting(text, MAX_DEPTH)
        return json.loads(text)
    except BadValue as exc:
        raise TransferError(str(exc)) from None
    except (ValueError, RecursionError) as exc:
        raise TransferError(f"not JSON ({str(exc)[:120]})") from None


# -- checking ------------------------------------------------------------------------------------


def validate(store: Store, document: object, now: datetime | None = None) -> Checked:
    """The document's rows, once every part of it is proven usable; else a TransferError naming
    the first field that is not (`answers[2].answered_at: ...`)."""
    now = now or utcnow()
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise TransferError(f'"format" is not "{FORMAT}"')
    unknown = set(document) - {"format", "version", "schema", "exported_at", "tables"}
    if unknown:
        raise TransferError(f"unknown field {shown(sorted(unknown)[0])}")
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > VERSION or version < 1:
        raise TransferError(f"version {shown(version)} is not one this normkata reads (1 to {VERSION})")
    known = [step.__name__ for step in MIGRATIONS]
    schema = document.get("schema")
    if not isinstance(schema, list) or len(schema) > 10 * len(known) or not all(isinstance(s, str) for s in schema):
        raise TransferError('"schema" is not a list of migration names')
    newer = [s for s in schema if s not in known]
    if newer:
        raise TransferError(f"written by a newer normkata (schema step {shown(newer[0])}): upgrade normkata first")
    if document.get("exported_at") is not None:
        try:
            moment(document["exported_at"], now=now)
        except BadValue as exc:
            raise TransferError(f"exported_at: {exc}") from None
    tables = document.get("tables")
    if not isinstance(tables, dict):
        raise TransferError('"tables" is missing')
    unknown = set(tables) - {*TABLES, *KEYED}
    if unknown:
        raise TransferError(f"unknown table {shown(sorted(unknown)[0])}")
    checked: dict[str, list[Row]] = {}
    for table in [*TABLES, *KEYED]:
        rows = tables.get(table, [])  # a file from before a table existed has none of its rows
        if not isinstance(rows, list):
            raise TransferError(f"{table}: must be a list of rows")
        checked[table] = [_row(table, number, row, now) for number, row in enumerate(rows)]
        seen: set[int | str] = set()
        for number, row in enumerate(checked[table]):
            if row.id in seen:
                raise TransferError(f"{table}[{number}]: the id {shown(row.id)} twice")
            seen.add(row.id)
    _check_references(checked)
    return Checked(list(schema), checked)


def _row(table: str, number: int, row: object, now: datetime) -> Row:
    where = f"{table}[{number}]"
    if not isinstance(row, dict):
        raise TransferError(f"{where}: must be an object, got {shown(row)}")
    rules = COLUMNS[table]
    extra = set(row) - set(rules)
    if extra:
        raise TransferError(f"{where}: unknown column {shown(sorted(extra)[0])}")
    values: dict[str, Any] = {}
    for name, rule in rules.items():
        value = row.get(name)
        if value is None:
            if not rule.nullable:
                raise TransferError(f"{where}.{name}: is missing")
            values[name] = None
            continue
        try:
            values[name] = rule.check(value, now)
        except BadValue as exc:
            raise TransferError(f"{where}.{exc.under(name)}") from None
    try:
        check_row(table, values)
    except BadValue as exc:
        raise TransferError(f"{where}.{exc}") from None
    return Row(values[KEYED.get(table, "id")], values)


def _check_references(checked: dict[str, list[Row]]) -> None:
    for table, references in TABLES.items():
        for column, target in references.items():
            present = {row.id for row in checked[target]}
            for number, row in enumerate(checked[table]):
                if row.values[column] not in present:
                    raise TransferError(f"{table}[{number}].{column}: {row.values[column]} is not in {target}")
    attempts = {row.id for row in checked["kata_attempts"]}
    for number, row in enumerate(checked["kata_events"]):
        if row.values["kind"] == "review":
            after = json.loads(row.values["detail"])["after_attempt"]
            if after and after not in attempts:
                raise TransferError(f"kata_events[{number}].detail.after_attempt: {after} is not in kata_attempts")


# -- merging -------------------------------------------------------------------------------------


@dataclass
class Added:
    rows: dict[str, int] = field(default_factory=dict)
    schedules_updated: int = 0
    settings_updated: int = 0

    @property
    def nothing(self) -> bool:
        return not any(self.rows.values()) and not self.schedules_updated and not self.settings_updated


def import_document(store: Store, document: object, now: datetime | None = None) -> Added:
    """Merge a document, every value of it checked first, into the store in one transaction."""
    checked = validate(store, document, now)
    # A file from before m010_case_ids keeps case names in the grade's language: keyed by id here, as
    # that step keys this store's own rows.
    by_name = "m010_case_ids" not in checked.schema
    added = Added()
    with store.transaction():
        local_reviews = _latest_reviews(store)  # this machine's own evidence, before anything is added
        mapped: dict[str, dict[Any, int]] = {}
        activity: list[tuple[str, str, str]] = []  # (at, kata, kind) of each kata event and attempt added
        for table, references in TABLES.items():
            columns = [name for name in _columns(store, table) if name not in ("id", IMPORTED)]
            marked = IMPORTED in _columns(store, table)
            existing = _existing(store, table, columns)
            insert = (
                f"INSERT INTO {table} ({', '.join(columns + [IMPORTED] * marked)}) "
                f"VALUES ({', '.join('?' * (len(columns) + marked))})"
            )
            ids: dict[Any, int] = {}
            count = 0
            for row in checked.tables[table]:
                values: dict[str, Any] = {name: row.values.get(name) for name in columns}
                for column, target in references.items():
                    values[column] = mapped[target][values[column]]
                if table == "kata_events" and values["kind"] == "review":
                    values["detail"] = _remap_round(values["detail"], mapped["kata_attempts"])
                if table == "kata_attempts" and by_name and values.get("cases"):
                    values["cases"] = cases_by_id(str(values["kata"]), values["cases"])
                key = tuple(values[name] for name in columns)
                same = existing.get(key)
                if same:  # already here: that row's id stands for this one
                    ids[row.id] = same.popleft()
                    continue
                cursor = store._conn.execute(insert, (*key, *([1] * marked)))
                ids[row.id] = int(cursor.lastrowid or 0)
                count += 1
                if table == "kata_events":
                    activity.append((values["at"], values["kata"], values["kind"]))
                elif table == "kata_attempts":
                    activity.append((values["at"], values["kata"], "attempt"))
            mapped[table] = ids
            added.rows[table] = count
        for _at, kata, kind in sorted(activity, key=lambda entry: entry[0]):
            store._conn.execute("INSERT INTO kata_activity (kata, kind) VALUES (?, ?)", (kata, kind))
        file_reviews = _latest_in_file(checked.tables["review_logs"])
        added.schedules_updated = _merge_schedules(store, checked.tables[SCHEDULES], file_reviews, local_reviews)
        added.settings_updated = _merge_settings(store, checked.tables[SETTINGS])
    return added


def _existing(store: Store, table: str, columns: list[str]) -> dict[tuple, deque[int]]:
    """Every row of `table` by its values (all columns but its id): the ids holding them, lowest first."""
    found: dict[tuple, deque[int]] = {}
    for row in store._conn.execute(f"SELECT id, {', '.join(columns)} FROM {table} ORDER BY id"):
        found.setdefault(tuple(row)[1:], deque()).append(int(row[0]))
    return found


def _remap_round(detail: str, attempts: dict[Any, int]) -> str:
    """A 'review' event names the last attempt before its round: that attempt's id here."""
    after = json.loads(detail)["after_attempt"]
    return json.dumps({"after_attempt": attempts.get(after, 0)})


def _latest_reviews(store: Store) -> dict[str, str]:
    rows = store._conn.execute("SELECT item_id, MAX(reviewed_at) FROM review_logs GROUP BY item_id")
    return {row[0]: str(row[1]) for row in rows}


def _latest_in_file(rows: list[Row]) -> dict[str, str]:
    latest: dict[str, str] = {}
    for row in rows:
        item, at = row.values["item_id"], row.values["reviewed_at"]
        if at > latest.get(item, ""):
            latest[item] = at
    return latest


def _merge_schedules(store: Store, rows: list[Row], file_reviews: dict[str, str], local_reviews: dict[str, str]) -> int:
    """Add the schedules not here; replace one that is here only when the file proves later reviews."""
    changed = 0
    for row in rows:
        item = row.values["item_id"]
        here = store._conn.execute("SELECT 1 FROM srs WHERE item_id = ?", (item,)).fetchone()
        if here is not None and not _proves_later(
            row.values["card_json"], file_reviews.get(item), local_reviews.get(item)
        ):
            continue
        store._conn.execute(
            "INSERT INTO srs (item_id, kind, topic, card_json, due) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(item_id) DO UPDATE SET kind = excluded.kind, topic = excluded.topic, "
            "card_json = excluded.card_json, due = excluded.due",
            tuple(row.values[name] for name in ("item_id", "kind", "topic", "card_json", "due")),
        )
        changed += 1
    return changed


def _merge_settings(store: Store, rows: list[Row]) -> int:
    """Add the settings not here; take the file's value of one that is here when the file set it
    later (its time is checked like every other: not beyond this machine's clock)."""
    changed = 0
    for row in rows:
        name, value, set_at = (row.values[column] for column in ("name", "value", "set_at"))
        here = store._conn.execute("SELECT value, set_at FROM settings WHERE name = ?", (name,)).fetchone()
        if here is not None and (here[0] == value or str(here[1]) >= set_at):
            continue
        store._conn.execute(
            "INSERT INTO settings (name, value, set_at) VALUES (?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET value = excluded.value, set_at = excluded.set_at",
            (name, value, set_at),
        )
        changed += 1
    return changed


def _proves_later(card_json: str, in_file: str | None, here: str | None) -> bool:
    """Whether the file's review log holds a review of the item later than every local one, and
    its card claims no review beyond that log."""
    if in_file is None or (here is not None and in_file <= here):
        return False
    last_review = json.loads(card_json).get("last_review")
    return last_review is None or datetime.fromisoformat(last_review) <= datetime.fromisoformat(in_file) + SAME_REVIEW
