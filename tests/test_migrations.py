"""Migrations: statements split as SQLite reads them, all-or-nothing, and every old schema upgrades with its data."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from normkata.record import migrations
from normkata.record.attempts import KataLog
from normkata.record.migrations import MIGRATIONS, migrate, statements
from normkata.record.store import Store


def test_statements_end_where_sqlite_says_they_end() -> None:
    script = """
        CREATE TABLE t (a TEXT DEFAULT 'x;y');  -- a comment; with a semicolon
        CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN
            UPDATE t SET a = a || ';'; UPDATE t SET a = a;
        END;
        INSERT INTO t VALUES ('last; one')
    """
    parts = list(statements(script))
    assert len(parts) == 3
    assert "CREATE TRIGGER" in parts[1] and parts[1].endswith("END;")  # the trigger whole, its ';'s inside
    db = sqlite3.connect(":memory:")
    for part in parts:
        db.execute(part)
    assert db.execute("SELECT a FROM t").fetchone()[0] == "last; one;"


def test_an_unfinished_statement_is_an_error() -> None:
    with pytest.raises(ValueError, match="incomplete SQL"):
        list(statements("CREATE TABLE t (a TEXT DEFAULT 'open"))


def test_a_failing_step_leaves_the_schema_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = sqlite3.connect(tmp_path / "s.db", isolation_level=None)

    def broken(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE half_done (a)")
        raise sqlite3.OperationalError("boom")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, broken])
    with pytest.raises(sqlite3.OperationalError, match="boom"):
        migrate(db)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == set() and not db.in_transaction  # not even the first steps: one transaction
    db.close()


def _old_database(path: Path, applied: int) -> dict[str, list[tuple]]:
    """A database as a release with only the first `applied` steps left it, two rows in every table.

    Rows are made from each column's declared type, so a step added later is covered too.
    """
    db = sqlite3.connect(path, isolation_level=None)  # rollback journal, as the first releases used
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for step in MIGRATIONS[:applied]:
        step(db)
        db.execute("INSERT INTO _migrations VALUES (?, 'then')", (step.__name__,))
    rows: dict[str, list[tuple]] = {}
    tables = db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != '_migrations' "
        "ORDER BY rowid"
    ).fetchall()
    for (table,) in tables:
        columns = db.execute(f"PRAGMA table_info({table})").fetchall()
        rows[table] = []
        for i in (1, 2):
            values = tuple(_value(table, name, kind, i) for _cid, name, kind, *_rest in columns)
            db.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(values))})", values)
            rows[table].append(values)
    db.close()
    return rows


def _value(table: str, column: str, kind: str, i: int) -> object:
    if kind.upper() == "INTEGER":
        return i  # ids, and references to the sessions 1 and 2
    if kind.upper() == "REAL":
        return i + 0.5
    if column in ("at", "started_at", "answered_at", "rated_at", "due"):
        return f"2025-01-0{i}T00:00:00+00:00"
    return f"{table}.{column}.{i}"


@pytest.mark.parametrize("applied", range(len(MIGRATIONS)))
def test_every_earlier_schema_upgrades_and_keeps_its_data(tmp_path: Path, applied: int) -> None:
    path = tmp_path / "old.db"
    before = _old_database(path, applied)
    store = Store(path)
    done = [row[0] for row in store._conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
    assert done == [step.__name__ for step in MIGRATIONS]
    for table, rows in before.items():
        width = len(rows[0])
        kept = [tuple(row)[:width] for row in store._conn.execute(f"SELECT * FROM {table} ORDER BY rowid")]
        assert kept[: len(rows)] == rows, table  # the old columns, unchanged, in the same rows
    assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store.close()


def test_upgraded_history_keeps_the_last_kata(tmp_path: Path) -> None:
    """Rows from before the activity sequence are carried over in time order (attempts after events at a tie)."""
    path = tmp_path / "old.db"
    _old_database(path, applied=2)  # kata_events and kata_attempts, rows dated the 1st and the 2nd
    db = sqlite3.connect(path)
    db.execute("UPDATE kata_events SET kata = 'rmsnorm'")
    db.execute("UPDATE kata_attempts SET kata = 'layernorm', at = '2025-01-01T00:00:00+00:00'")
    db.commit()
    db.close()
    store = Store(path)
    assert KataLog(store).last_kata() == "rmsnorm"  # the event on the 2nd is the latest thing done
    KataLog(store).event("batchnorm", "started")
    assert KataLog(store).last_kata() == "batchnorm"
    store.close()


#: Two attempts at rmsnorm as releases before m010 kept them: case names in the language of the
#: grade (Chinese, then English), misconceptions by id with the title of that language.
OLD_ATTEMPTS = [
    (
        {
            "前向 [2x8-cpu]": "failed",
            "梯度 [2x8-cpu]": "failed",
            "未使用禁止的 API": "passed",
            "renamed case": "failed",
        },
        [{"id": "rms-eps-outside-sqrt", "title": "eps 加在了平方根外面"}],
        0,
    ),
    (
        {
            "forward [2x8-cpu]": "passed",
            "gradients [2x8-cpu]": "failed",
            "uses no forbidden API": "passed",
            "renamed case": "passed",
        },
        [],
        0,
    ),
]


#: The schemas from before attempts kept case ids (m010), each of which an upgrade converts.
BEFORE_CASE_IDS = [m.__name__ for m in MIGRATIONS].index("m010_case_ids") + 1


@pytest.mark.parametrize("applied", range(BEFORE_CASE_IDS))
def test_every_earlier_schema_keeps_kata_history_readable(tmp_path: Path, applied: int) -> None:
    """Attempts from any earlier release read by id: the same case graded in two languages is one case."""
    import json

    from normkata.record.attempts import base_for, diff

    path = tmp_path / "old.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for step in MIGRATIONS[:applied]:
        step(db)
        db.execute("INSERT INTO _migrations VALUES (?, 'then')", (step.__name__,))
    columns = {row[1] for row in db.execute("PRAGMA table_info(kata_attempts)")}
    for number, (cases, named, passed) in enumerate(OLD_ATTEMPTS, start=1):
        if not columns:
            break  # a release before katas: nothing to carry
        row = {
            "kata": "rmsnorm",
            "file": "rmsnorm.py",
            "passed": passed,
            "score": number,
            "max_score": 4,
            "counts": "{}",
            "device": "cpu",
            "duration_s": 1.0,
            "at": f"2025-01-0{number}T00:00:00+00:00",
            "seed": number,
            "cases": json.dumps(cases, ensure_ascii=False),
            "diagnosis": json.dumps(named, ensure_ascii=False),
        }
        kept = {k: v for k, v in row.items() if k in columns}
        db.execute(
            f"INSERT INTO kata_attempts ({', '.join(kept)}) VALUES ({', '.join('?' * len(kept))})", tuple(kept.values())
        )
    db.close()
    store = Store(path)
    attempts = KataLog(store).attempts("rmsnorm")
    store.close()
    if not columns:
        assert attempts == []
        return
    assert [a.score for a in attempts] == [1, 2]
    if "cases" not in columns:  # graded before case results were kept: nothing to compare, nothing made up
        assert all(a.cases is None and a.misconceptions == () for a in attempts)
        return
    first, second = attempts
    assert first.cases == {
        "forward[2x8-cpu]": "failed",
        "gradients[2x8-cpu]": "failed",
        "forbidden_api": "passed",
        "renamed case": "failed",
    }
    assert set(second.cases or {}) == set(first.cases)
    found = base_for(attempts)
    assert found is not None
    changes = diff(second, *found)
    assert changes is not None
    assert changes.newly_passing == ["forward[2x8-cpu]", "renamed case"] and changes.still_failing == 1
    assert [first.case(c, "en") for c in changes.newly_passing] == ["forward [2x8-cpu]", "renamed case"]
    assert [first.case(c, "zh") for c in changes.newly_passing] == ["前向 [2x8-cpu]", "renamed case"]
    assert [m.shown("rmsnorm", "en") for m in changes.no_longer_named] == ["eps added outside the square root"]
    assert first.titles("zh") == ["eps 加在了平方根外面"] and changes.named_now == []


def test_a_progress_file_from_before_case_ids_imports_by_id(tmp_path: Path) -> None:
    """`progress import` of a file written before m010 keys its attempts' cases by id, as m010 does here."""
    import json

    from normkata.record.transfer import export_document, import_document
    from tests.grades import grade_result

    old = Store(tmp_path / "old.db")
    KataLog(old).attempt(grade_result("rmsnorm", {"前向 [2x8-cpu]": "failed"}, lang="zh"), "cpu")
    document = export_document(old)
    old.close()
    document["schema"].remove("m010_case_ids")
    document["tables"]["kata_attempts"][0]["cases"] = json.dumps({"前向 [2x8-cpu]": "failed"}, ensure_ascii=False)
    laptop = Store(tmp_path / "laptop.db")
    import_document(laptop, document)
    assert import_document(laptop, document).nothing  # twice = once, after the renaming too
    assert [a.cases for a in KataLog(laptop).attempts()] == [{"forward[2x8-cpu]": "failed"}]
    laptop.close()
