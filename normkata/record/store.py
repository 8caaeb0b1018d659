"""The progress store: one SQLite file in the state directory.

Every answer and rating is written in its own transaction, in WAL mode with full syncs, so a
process killed at any moment loses at most the answer in flight, and readers never block the
writer. A file is called damaged only when SQLite's integrity check, run on a read-only
connection, says so; it is then moved aside with its WAL and journal, and reported. A lock, a
read-only file, a full disk or a folder in the database's place is reported as what it is
(StoreError: one line, exit 2) and nothing is moved.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import weakref
from collections.abc import Callable, Sequence
from contextlib import closing, suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from normkata import clock
from normkata.errors import InputError
from normkata.i18n import Text
from normkata.record import values
from normkata.record.migrations import migrate
from normkata.record.values import iso

#: How long a write waits for another process's transaction before giving up. Writers hold
#: the lock for one short transaction, so only a stuck or foreign program waits this long.
BUSY_TIMEOUT_S = 10.0

#: SQLite's primary result codes that can mean a damaged file; only an integrity check decides.
_SUSPECT = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_READONLY = 8  # SQLITE_READONLY

#: Files SQLite keeps beside the database; a damaged file travels with them.
_COMPANIONS = ("-wal", "-shm", "-journal")

#: Open stores, so that the CLI edge can close them once it has set a damaged file aside.
_OPEN: weakref.WeakSet[Store] = weakref.WeakSet()


#: A setting's value once it is forgotten (`plan --until none`): no setting is empty text.
FORGOTTEN = ""


def utcnow() -> datetime:
    """Now, by the learner's clock (normkata.clock): what every row is stamped with."""
    return clock.now()


@dataclass(frozen=True)
class Review:
    """An FSRS review to save: the item's next state, and the review itself (fsrs's ReviewLog)."""

    card_json: str
    due: str
    rating: int
    state_before: int | None  # fsrs.State before the review: an Again in Review (2) is a lapse
    reviewed_at: str
    duration_ms: int | None


#: What `record_answer` and `record_rating` save in `srs`: a Review, or a bare (card_json, due).
SrsState = tuple[str, str] | Review


@dataclass(frozen=True)
class Scheduled:
    """An item's row in `srs`, as stored (a row edited by hand may hold anything: readers check it
    through normkata.record.values)."""

    item_id: str
    kind: str  # question | card | kata
    topic: str
    due: str  # ISO
    card_json: str  # fsrs.Card.to_json()


@dataclass(frozen=True)
class LoggedReview:
    """One FSRS review in `review_logs`, as stored."""

    item_id: str
    rating: int
    reviewed_at: str  # ISO
    duration_ms: int | None


class StoreError(InputError):
    """The progress database cannot be used right now: one line saying why and what to do, exit 2."""


@dataclass(frozen=True)
class DamagedDatabase:
    path: Path
    moved_to: Path
    reason: str


class Store:
    def __init__(self, path: Path, on_damage: Callable[[DamagedDatabase], None] | None = None) -> None:
        self.path = path
        _make_folder(path.parent)
        opened = self._connect()
        if isinstance(opened, DamagedDatabase):
            if on_damage:
                on_damage(opened)
            opened = self._connect()  # a fresh file in its place
            if isinstance(opened, DamagedDatabase):  # cannot happen to a new file; never loop
                raise StoreError(message("damaged", path=path, why=opened.reason, moved=opened.moved_to))
        self._conn = opened
        _OPEN.add(self)

    # -- opening ---------------------------------------------------------------------------

    def _connect(self, *, read_only: bool = False) -> sqlite3.Connection | DamagedDatabase:
        """An open, up-to-date connection; or, when the file proves damaged, where it was moved.

        A database that cannot be written is opened read-only: what only reads (the dashboard)
        still works, and the first write says "read-only".
        """
        check_database_file(self.path)
        try:  # autocommit mode: every transaction below is explicit
            db = sqlite3.connect(_uri(self.path, read_only), uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as exc:
            raise explain(exc, self.path, check=False) from None
        try:
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA foreign_keys = ON")
            if not read_only:
                _use_wal(db)
            migrate(db)
        except sqlite3.Error as exc:
            if _code(exc) == _READONLY and not read_only and self.path.is_file():
                db.close()
                return self._connect(read_only=True)
            # Checked and moved while this connection is still open: closing it first would
            # let SQLite delete the WAL that must travel with the damaged file.
            damage = confirmed_damage(exc, self.path)
            db.close()
            if damage is None:
                raise explain(exc, self.path, check=False) from None
            return damage
        except BaseException:
            db.close()
            raise
        return db

    def transaction(self) -> _Transaction:
        return _Transaction(self._conn)

    def close(self) -> None:
        _OPEN.discard(self)
        self._conn.close()

    # -- sessions, answers, ratings ----------------------------------------------------------

    def start_session(self, kind: str, lang: str) -> int:
        with self.transaction():
            cur = self._conn.execute(
                "INSERT INTO sessions (kind, lang, started_at) VALUES (?, ?, ?)", (kind, lang, iso(utcnow()))
            )
        return int(cur.lastrowid or 0)

    def end_session(self, session_id: int) -> None:
        with self.transaction():
            self._conn.execute("UPDATE sessions SET ended_at = ? WHERE id = ?", (iso(utcnow()), session_id))

    def record_answer(
        self, session_id: int, item_id: str, topic: str, given: str, correct: bool, srs_state: SrsState
    ) -> None:
        """The answer and the item's new schedule, together or not at all."""
        with self.transaction():
            self._conn.execute(
                "INSERT INTO answers (session_id, item_id, topic, given, correct, answered_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, item_id, topic, given, int(correct), iso(utcnow())),
            )
            self._save_srs(item_id, "question", topic, srs_state)

    def record_rating(
        self, session_id: int, item_id: str, topic: str, response: str, rating: int, srs_state: SrsState
    ) -> None:
        """The rating and the card's new schedule, together or not at all."""
        with self.transaction():
            self._save_rating(session_id, item_id, topic, response, rating, srs_state)

    def _save_rating(
        self, session_id: int, item_id: str, topic: str, response: str, rating: int, srs_state: SrsState
    ) -> None:
        """A rating and its schedule, inside the caller's transaction (a mock's score joins it: record.mocks)."""
        self._conn.execute(
            "INSERT INTO ratings (session_id, item_id, topic, response, rating, rated_at) VALUES (?, ?, ?, ?, ?, ?)",
            (session_id, item_id, topic, response, rating, iso(utcnow())),
        )
        self._save_srs(item_id, "card", topic, srs_state)

    def _save_srs(self, item_id: str, kind: str, topic: str, srs_state: SrsState) -> None:
        card_json, due = (srs_state.card_json, srs_state.due) if isinstance(srs_state, Review) else srs_state
        self._conn.execute(
            "INSERT INTO srs (item_id, kind, topic, card_json, due) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(item_id) DO UPDATE SET card_json = excluded.card_json, due = excluded.due",
            (item_id, kind, topic, card_json, due),
        )
        if isinstance(srs_state, Review):
            self._conn.execute(
                "INSERT INTO review_logs (item_id, kind, topic, rating, state_before, reviewed_at, duration_ms) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    item_id,
                    kind,
                    topic,
                    srs_state.rating,
                    srs_state.state_before,
                    srs_state.reviewed_at,
                    srs_state.duration_ms,
                ),
            )

    def record_review(self, item_id: str, kind: str, topic: str, review: Review) -> None:
        """A review of an item that is neither a quiz answer nor a card rating (a kata written again)."""
        with self.transaction():
            self._save_srs(item_id, kind, topic, review)

    def bring_forward(self, items: Sequence[tuple[str, str, str]], moment: str, new_card: Callable[[], str]) -> None:
        """Make each (item id, kind, topic) due at `moment` at the latest, in one transaction: one
        never scheduled gets `new_card()` (an FSRS card due then); one due later is moved to then."""
        with self.transaction():
            for item_id, kind, topic in items:
                row = self._conn.execute("SELECT due FROM srs WHERE item_id = ?", (item_id,)).fetchone()
                if row is None:
                    self._conn.execute(
                        "INSERT INTO srs (item_id, kind, topic, card_json, due) VALUES (?, ?, ?, ?, ?)",
                        (item_id, kind, topic, new_card(), moment),
                    )
                elif row[0] > moment:
                    self._conn.execute("UPDATE srs SET due = ? WHERE item_id = ?", (moment, item_id))

    def save_fsrs_parameters(
        self, parameters: Sequence[float], reviews: int, before: float, after: float, recalled: float
    ) -> None:
        """A fit of the learner's own FSRS parameters (`review --optimize`), from `reviews` reviews, with the
        retention predicted `before` (fsrs's defaults) and `after` (the fit) and the share `recalled`."""
        with self.transaction():
            self._conn.execute(
                "INSERT INTO fsrs_parameters (parameters, reviews, retention_before, retention_after, recalled, "
                "fitted_at) VALUES (?, ?, ?, ?, ?, ?)",
                (json.dumps(list(parameters)), reviews, before, after, recalled, iso(utcnow())),
            )

    def fsrs_parameters(self) -> list[float] | None:
        """The learner's own FSRS parameters (`review --optimize`), or None for fsrs's defaults; the
        latest fit fsrs can use (one it cannot, edited by hand, is skipped and noted)."""
        for row_id, text in self._conn.execute("SELECT id, parameters FROM fsrs_parameters ORDER BY id DESC"):
            try:
                return values.fsrs_parameters(text)
            except values.BadValue as exc:
                values.skip(f"fsrs_parameters #{row_id}", exc.under("parameters"))
        return None

    def setting(self, name: str) -> str | None:
        """A setting the learner gave (`plan --until`'s date), or None."""
        try:
            row = self._conn.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):  # a read-only database opened before m011: nothing was set
                return None
            raise
        return row[0] if row and row[0] != FORGOTTEN else None

    def set_setting(self, name: str, value: str | None) -> None:
        """Remember `value` under `name`; None forgets it. A setting forgotten keeps its row, empty
        and dated, so that an older progress file cannot bring it back (record.transfer)."""
        with self.transaction():
            self._conn.execute(
                "INSERT INTO settings (name, value, set_at) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET value = excluded.value, set_at = excluded.set_at",
                (name, FORGOTTEN if value is None else value, iso(utcnow())),
            )

    # -- queries -----------------------------------------------------------------------------

    def srs_card_json(self, item_id: str) -> str | None:
        row = self._conn.execute("SELECT card_json FROM srs WHERE item_id = ?", (item_id,)).fetchone()
        return row[0] if row else None

    def due_items(self, before: datetime) -> list[Scheduled]:
        """Items due by `before`, soonest first."""
        rows = self._conn.execute(
            "SELECT item_id, kind, topic, due, card_json FROM srs WHERE due <= ? ORDER BY due", (iso(before),)
        )
        return [Scheduled(*row) for row in rows]

    def due_of_kind(self, kind: str, before: datetime) -> list[Scheduled]:
        """Items of one kind due by `before`, soonest first, then by id."""
        rows = self._conn.execute(
            "SELECT item_id, kind, topic, due, card_json FROM srs WHERE kind = ? AND due <= ? ORDER BY due, item_id",
            (kind, iso(before)),
        )
        return [Scheduled(*row) for row in rows]

    def srs_states(self) -> list[Scheduled]:
        """Every scheduled item, by id."""
        rows = self._conn.execute("SELECT item_id, kind, topic, due, card_json FROM srs ORDER BY item_id")
        return [Scheduled(*row) for row in rows]

    def review_logs(self) -> list[LoggedReview]:
        """Every FSRS review, oldest first."""
        rows = self._conn.execute(
            "SELECT item_id, rating, reviewed_at, duration_ms FROM review_logs ORDER BY reviewed_at, id"
        )
        return [LoggedReview(*row) for row in rows]

    def last_reviews(self) -> dict[str, str]:
        """item id -> when it was last reviewed (ISO)."""
        rows = self._conn.execute("SELECT item_id, MAX(reviewed_at) FROM review_logs GROUP BY item_id")
        return {row[0]: str(row[1]) for row in rows}

    def last_rating(self, item_id: str) -> int | None:
        """The rating of the item's latest review, or None when it has none."""
        row = self._conn.execute(
            "SELECT rating FROM review_logs WHERE item_id = ? ORDER BY id DESC LIMIT 1", (item_id,)
        ).fetchone()
        return int(row[0]) if row else None

    def answering_ms(self) -> float:
        """Milliseconds spent answering, over every review that kept its duration."""
        from normkata.record.fields import MAX_SECONDS

        # Durations within a year each (fields.MAX_SECONDS), summed as floats: a row edited by hand to
        # 2**63-1 neither overflows SQLite's integer sum nor counts as a lifetime of study.
        return float(
            self._conn.execute(
                "SELECT TOTAL(duration_ms) FROM review_logs "
                "WHERE typeof(duration_ms) = 'integer' AND duration_ms BETWEEN 0 AND ?",
                (MAX_SECONDS * 1000,),
            ).fetchone()[0]
        )

    def lapses(self) -> dict[str, int]:
        """item id -> how many times it was forgotten after being learnt (Again while in FSRS's Review state)."""
        rows = self._conn.execute(
            "SELECT item_id, COUNT(*) FROM review_logs WHERE rating = 1 AND state_before = 2 GROUP BY item_id"
        )
        return {row[0]: int(row[1]) for row in rows}

    def next_due(self) -> str | None:
        row = self._conn.execute("SELECT MIN(due) FROM srs").fetchone()
        return row[0]

    def session_spans(self, since: datetime) -> list[tuple[datetime, datetime]]:
        """(start, end) of every finished practice session (quiz, interview, review, mock) since `since`."""
        rows = self._conn.execute(
            "SELECT started_at, ended_at FROM sessions WHERE ended_at IS NOT NULL AND started_at >= ? ORDER BY id",
            (iso(since),),
        )
        spans = []
        for start, end in rows:
            try:
                spans.append((datetime.fromisoformat(start), datetime.fromisoformat(end)))
            except (TypeError, ValueError):
                continue  # a time nobody can read (an imported row) counts for nothing
        return spans

    def latest_answers(self) -> dict[str, bool]:
        """Each question's most recent answer: item id -> correct."""
        rows = self._conn.execute(
            "SELECT item_id, correct FROM answers WHERE id IN (SELECT MAX(id) FROM answers GROUP BY item_id)"
        )
        return {row[0]: bool(row[1]) for row in rows}

    def latest_ratings(self) -> dict[str, int]:
        rows = self._conn.execute(
            "SELECT item_id, rating FROM ratings WHERE id IN (SELECT MAX(id) FROM ratings GROUP BY item_id)"
        )
        return {row[0]: int(row[1]) for row in rows}

    def counts(self) -> dict[str, int]:
        def one(sql: str) -> int:
            return int(self._conn.execute(sql).fetchone()[0])

        return {
            "answers": one("SELECT COUNT(*) FROM answers"),
            "correct": one("SELECT COUNT(*) FROM answers WHERE correct = 1"),
            "ratings": one("SELECT COUNT(*) FROM ratings"),
            "sessions": one("SELECT COUNT(*) FROM sessions"),
        }


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception (Ctrl-C included).

    SQLite may already have rolled back by itself (a full disk does): the rollback here then
    does nothing, so the error the caller sees is the one that happened, not "cannot rollback".
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            self._rollback()
            return
        try:
            self._conn.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        if self._conn.in_transaction:
            with suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")


def _use_wal(db: sqlite3.Connection) -> None:
    """WAL: readers never block the writer, and a killed writer's frames are simply ignored."""
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")  # a committed answer survives a power cut too


def _uri(path: Path, read_only: bool) -> str:
    """A file: URI for `path` (quoted: a "?" or "#" in a folder name is not a URI parameter).

    Read-only, a WAL database needs its -shm file, which a read-only folder cannot hold; with
    no -wal and no journal there is nothing besides the file itself to read, so it is read as
    immutable instead.
    """
    uri = path.absolute().as_uri()
    if not read_only:
        return uri
    beside = any(path.with_name(path.name + suffix).exists() for suffix in ("-wal", "-journal"))
    return uri + ("?mode=ro" if beside or os.access(path.parent, os.W_OK) else "?mode=ro&immutable=1")


def not_a_file(path: Path) -> str | None:
    """What stands at `path` when it is there and is no regular file ("a folder", "a FIFO", ...), else
    None. SQLite must not open such a thing: a read-only open of a FIFO waits for a writer forever."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # absent (a new database), or unreadable: SQLite says which
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    return "a socket" if stat.S_ISSOCK(mode) else "a device"


def check_database_file(path: Path, lang: str = "en") -> None:
    """A StoreError, at once, when something other than a database file stands at `path`."""
    what = not_a_file(path)
    if what == "a folder":
        raise StoreError(message("folder", lang, path=path))
    if what is not None:
        raise StoreError(message("special", lang, path=path, what=what))


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(message("no_folder", folder=folder, why=exc.strerror or exc)) from None


def _code(exc: BaseException) -> int | None:
    """SQLite's primary result code of an error, when it carries one."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


# -- damage ----------------------------------------------------------------------------------


def integrity_problem(path: Path) -> str | None:
    """What SQLite's quick_check finds wrong with `path`, or None when it finds nothing.

    The connection is read-only, so a hot journal is neither rolled back nor deleted: if one
    stands in the way the check cannot run, and that is not evidence of damage either.
    """
    if not_a_file(path) is not None:
        return None  # no database file to check (and a FIFO opened read-only would never answer)
    try:
        with closing(sqlite3.connect(_uri(path, read_only=True), uri=True, timeout=BUSY_TIMEOUT_S)) as db:
            rows = [row[0] for row in db.execute("PRAGMA quick_check")]
    except sqlite3.Error as exc:
        return str(exc) if _code(exc) in _SUSPECT else None
    return None if rows == ["ok"] else "; ".join(str(r) for r in rows[:3])


def confirmed_damage(exc: BaseException, path: Path) -> DamagedDatabase | None:
    """When `exc` hints at damage and the integrity check agrees, set the file aside."""
    if _code(exc) not in _SUSPECT or not path.is_file():
        return None
    problem = integrity_problem(path)
    if problem is None:
        return None
    return DamagedDatabase(path, set_aside(path), problem)


def set_aside(path: Path) -> Path:
    """Rename `path` and its WAL, SHM and journal to `<name>.damaged-<time>[-wal...]`."""
    moved = path.with_name(f"{path.name}.damaged-{utcnow():%Y%m%dT%H%M%S%f}")
    for suffix in _COMPANIONS:  # companions first: a WAL without its database is harmless
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            companion.rename(moved.with_name(moved.name + suffix))
    path.rename(moved)
    return moved


# -- explaining ------------------------------------------------------------------------------

#: key -> the message in both languages. Kept here rather than in a catalog: these are the store's own words.
_MESSAGES: dict[str, Text] = {
    "busy": Text(
        "The progress database {path} is locked by another program (another normkata?): nothing was changed. "
        "Close it and try again.",
        "进度数据库 {path} 被另一个程序锁定（另一个 normkata？）：未做任何更改。请关闭它后重试。",
    ),
    "readonly": Text(
        "The progress database {path} is read-only ({why}): nothing was changed. "
        "Make it and its folder writable, or set NORMKATA_HOME to a writable folder.",
        "进度数据库 {path} 是只读的（{why}）：未做任何更改。"
        "请让它及其文件夹可写，或把 NORMKATA_HOME 设为可写的文件夹。",
    ),
    "full": Text(
        "The disk holding {path} is full ({why}): what was saved before is kept. Free some space and try again.",
        "{path} 所在的磁盘已满（{why}）：之前保存的内容都在。请腾出空间后重试。",
    ),
    "cantopen": Text(
        "Cannot open the progress database {path} ({why}): check that its folder exists and is writable, "
        "or set NORMKATA_HOME.",
        "无法打开进度数据库 {path}（{why}）：请检查其文件夹存在且可写，或设置 NORMKATA_HOME。",
    ),
    "ioerr": Text(
        "Disk error on the progress database {path} ({why}): nothing was moved. Check the disk and try again.",
        "进度数据库 {path} 读写出错（{why}）：未移动任何文件。请检查磁盘后重试。",
    ),
    "folder": Text(
        "{path} is a folder, not a database: move it away, or set NORMKATA_HOME to another folder.",
        "{path} 是文件夹而不是数据库：请把它移走，或把 NORMKATA_HOME 设为别的文件夹。",
    ),
    "special": Text(
        "{path} is {what}, not a database: move it away, or set NORMKATA_HOME to another folder.",
        "{path} 是{what}，不是数据库：请把它移走，或把 NORMKATA_HOME 设为别的文件夹。",
    ),
    "no_folder": Text(
        "Cannot create the folder {folder} for progress ({why}): set NORMKATA_HOME to a writable folder.",
        "无法创建进度文件夹 {folder}（{why}）：请把 NORMKATA_HOME 设为可写的文件夹。",
    ),
    "damaged": Text(
        "The progress database {path} is damaged ({why}): it was moved to {moved}; run the command again "
        "to start a fresh one.",
        "进度数据库 {path} 已损坏（{why}）：已移至 {moved}；再次运行命令即可新建一个。",
    ),
    "other": Text(
        "The progress database {path} could not be used ({why}): nothing was moved.",
        "无法使用进度数据库 {path}（{why}）：未移动任何文件。",
    ),
}

#: SQLite primary result code -> message key.
_BY_CODE = {5: "busy", 6: "busy", _READONLY: "readonly", 3: "readonly", 13: "full", 14: "cantopen", 10: "ioerr"}


def message(key: str, lang: str = "en", **fields: object) -> str:
    return _MESSAGES[key].in_(lang).format(**fields)


def explain(exc: BaseException, path: Path | None = None, lang: str = "en", *, check: bool = True) -> StoreError:
    """One line saying what went wrong with the database and what to do about it.

    With `check`, an error that hints at damage runs the integrity check, and a file that
    fails it is set aside (our connections closed after the move) before saying so.
    """
    path = path or _current_path()
    code, why = _code(exc), str(exc)
    if check and code in _SUSPECT:
        damage = confirmed_damage(exc, path)  # before closing ours: a close may delete the WAL
        for store in list(_OPEN):
            store.close()
        if damage:
            return StoreError(message("damaged", lang, path=path, why=damage.reason, moved=damage.moved_to))
    if path.is_dir():
        return StoreError(message("folder", lang, path=path))
    return StoreError(message(_kind(code, path), lang, path=path, why=why))


def _kind(code: int | None, path: Path) -> str:
    """Which message fits: SQLite's code, refined by what the file system says.

    A full disk often surfaces as an I/O error (the WAL index cannot grow) and a read-only
    folder as "unable to open": the learner should read what to do about the real cause.
    """
    kind = _BY_CODE.get(code or -1, "other")
    if kind in ("ioerr", "cantopen") and _disk_full(path.parent):
        return "full"
    if kind == "cantopen" and path.parent.is_dir() and not os.access(path.parent, os.W_OK):
        return "readonly"
    return kind


def _disk_full(folder: Path) -> bool:
    try:
        stats = os.statvfs(folder)
    except (OSError, AttributeError):  # no statvfs on Windows: trust SQLite's own code
        return False
    return stats.f_bavail * stats.f_frsize < 64 * 1024


def _current_path() -> Path:
    opened = [store.path for store in _OPEN]
    if opened:
        return opened[-1]
    from normkata.paths import database_path

    return database_path()


def open_store(on_damage: Callable[[DamagedDatabase], None] | None = None) -> Store:
    from normkata.paths import database_path

    return Store(database_path(), on_damage)


def open_record(lang: str) -> Store:
    """The learner's progress store, as every command opens it: a damaged file is set aside and
    said on stderr in `lang` (a fresh one takes its place); anything else that stops it is a StoreError."""
    return open_store(on_damage=lambda damage: report_damage(damage, lang))


def report_damage(damage: DamagedDatabase, lang: str) -> None:
    """One warning line on stderr: where the damaged database went, and why."""
    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    make_console(stderr=True).print(
        "[warn]" + t("store.damaged", lang, path=damage.path, why=damage.reason, moved=damage.moved_to) + "[/]",
        soft_wrap=True,  # one line, however long the paths
    )


def is_database_error(exc: BaseException) -> bool:
    """Whether `exc` is the database failing (said by `explain`), so that the edges need no sqlite3."""
    return isinstance(exc, sqlite3.Error)
