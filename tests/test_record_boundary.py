"""Only normkata.record knows the database: no SQL text, no `.execute` call, no touch of the record's
connection and no sqlite3 anywhere else in the package (lint-imports' "only the record speaks
SQLite" holds the imports; this holds the rest, and the imports of modules outside its list).

Each module is parsed, not grepped: adjacent literals count as the one string they make, an
f-string is read whole, and comments and words that merely look like SQL ("Select a topic") pass.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import normkata

PACKAGE = Path(normkata.__file__).parent
RECORD = PACKAGE / "record"

#: A string that starts as an SQL statement does (keywords in capitals, as every statement here is written)...
STATEMENT = re.compile(
    r"\s*(SELECT\s|INSERT\s+(OR\s+[A-Z]+\s+)?INTO\s|REPLACE\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s"
    r"|CREATE\s+(TEMP\s+|TEMPORARY\s+)?(TABLE|(UNIQUE\s+)?INDEX|VIEW|TRIGGER)\s|ALTER\s+TABLE\s"
    r"|DROP\s+(TABLE|INDEX|VIEW|TRIGGER)\s|PRAGMA\s|WITH\s+(RECURSIVE\s+)?\w+\s+AS\s*\(|BEGIN(\s+\w+)?\s*$"
    r"|COMMIT\s*$|ROLLBACK\s*$)"
)
#: ... or holds one further in (a statement built after a prefix).
INSIDE = re.compile(r"\b(SELECT\s.*\sFROM\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s)")
#: What runs SQL on a connection or a cursor.
EXECUTE = {"execute", "executemany", "executescript"}
#: The record's private connection (normkata.record.store.Store._conn).
CONNECTION = "_conn"


def findings(source: str, name: str) -> list[str]:
    """Each place in `source` that speaks to the database itself: `name:line: what`."""
    tree = ast.parse(source, name)
    # An f-string is read whole: its literal parts are not strings of their own.
    parts = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
    found = []
    for node in ast.walk(tree):
        what = None if id(node) in parts else _what(node)
        if what:
            found.append(f"{name}:{getattr(node, 'lineno', 0)}: {what}")
    return found


def _what(node: ast.AST) -> str | None:
    if isinstance(node, ast.Import) and any(_is_sqlite3(alias.name) for alias in node.names):
        return "imports sqlite3"
    if isinstance(node, ast.ImportFrom) and node.level == 0 and _is_sqlite3(node.module or ""):
        return "imports from sqlite3"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in EXECUTE:
        return f"calls .{node.func.attr}()"
    if isinstance(node, ast.Attribute) and node.attr == CONNECTION:
        return f"touches the record's connection (.{CONNECTION})"
    text = _text(node)
    if text is None:
        return None
    if text.strip() == "sqlite3":
        return "names sqlite3 (looked up rather than imported)"
    if STATEMENT.match(text) or INSIDE.search(text):
        return f"SQL {text.strip()[:60]!r}"
    return None


def _is_sqlite3(module: str) -> bool:
    return module == "sqlite3" or module.startswith("sqlite3.")


def _text(node: ast.AST) -> str | None:
    """A string literal's text; an f-string's literal parts, joined (its fields read as one space)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else " x " for v in node.values)
    return None


def outside_the_record() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if RECORD not in p.parents)


def test_no_module_outside_the_record_speaks_to_the_database() -> None:
    modules = outside_the_record()
    assert len(modules) > 100  # the package, not an empty glob
    found = [
        f for path in modules for f in findings(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE.parent)))
    ]
    assert found == [], "SQL belongs in normkata/record/ (a method of its classes):\n" + "\n".join(found)


def test_the_record_itself_is_where_the_sql_is() -> None:
    """The same check finds the record's own statements: it reads what it is meant to read."""
    store = RECORD / "store.py"
    found = findings(store.read_text(encoding="utf-8"), "store.py")
    assert any("SQL 'INSERT INTO answers" in f for f in found)
    assert any("imports sqlite3" in f for f in found)
    assert any("calls .execute()" in f for f in found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('rows = db.execute("SELECT id FROM srs")\n', ["m.py:1: calls .execute()", "m.py:1: SQL 'SELECT id FROM srs'"]),
        (
            'SQL = (\n    "UPDATE srs SET due = ? "\n    "WHERE item_id = ?"\n)\n',
            ["m.py:2: SQL 'UPDATE srs SET due = ? WHERE item_id = ?'"],
        ),
        ('table = "x"\nsql = f"DELETE FROM {table} WHERE id = ?"\n', ["m.py:2: SQL 'DELETE FROM  x  WHERE id = ?'"]),
        (
            'where = "done"\nsql = f"  -- {where}\\n  INSERT INTO answers VALUES (?)"\n',
            ["m.py:2: SQL '--  x \\n  INSERT INTO answers VALUES (?)'"],
        ),
        (
            '"CREATE TABLE notes (id INTEGER PRIMARY KEY)"\n',
            ["m.py:1: SQL 'CREATE TABLE notes (id INTEGER PRIMARY KEY)'"],
        ),
        ('"ALTER TABLE srs ADD COLUMN x"\n', ["m.py:1: SQL 'ALTER TABLE srs ADD COLUMN x'"]),
        ('"PRAGMA foreign_keys = ON"\n', ["m.py:1: SQL 'PRAGMA foreign_keys = ON'"]),
        ("conn.executescript(script)\n", ["m.py:1: calls .executescript()"]),
        ("cursor.executemany(sql, rows)\n", ["m.py:1: calls .executemany()"]),
        ("due = store._conn.in_transaction\n", ["m.py:1: touches the record's connection (._conn)"]),
        ("import sqlite3\n", ["m.py:1: imports sqlite3"]),
        ("from sqlite3 import Row\n", ["m.py:1: imports from sqlite3"]),
        (
            'import sys\nsqlite = sys.modules.get("sqlite3")\n',
            ["m.py:2: names sqlite3 (looked up rather than imported)"],
        ),
    ],
    ids=[
        "execute",
        "split-literal",
        "f-string",
        "inside",
        "create",
        "alter",
        "pragma",
        "executescript",
        "executemany",
        "connection",
        "import",
        "import-from",
        "looked-up",
    ],
)
def test_the_check_finds_sql_in_a_module(source: str, expected: list[str]) -> None:
    assert findings(source, "m.py") == expected


def test_the_check_passes_words_that_only_look_like_sql() -> None:
    source = '''
"""Select a topic, then update the settings; deleting from the list is fine (the SELECT above)."""
# db.execute("SELECT 1")  -- a comment is no statement
HELP = "Select the cards you made. Update: see --help. Begin when ready."
path = state_dir() / "normkata.db"
'''
    assert findings(source, "m.py") == []
