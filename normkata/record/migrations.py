"""Append-only schema migrations. Never edit one that has shipped: add the next.

`migrate` applies every pending step in one transaction taken with BEGIN IMMEDIATE, and
reads which steps are done only once it holds the write lock: ten commands started together
on a fresh home apply each step exactly once, and a process killed half-way leaves the
schema as it was.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import datetime, timezone

Step = Callable[[sqlite3.Connection], None]

MIGRATIONS: list[Step] = []


def migration(fn: Step) -> Step:
    MIGRATIONS.append(fn)
    return fn


def statements(script: str) -> Iterator[str]:
    """The SQL statements of `script`, each complete as SQLite itself judges it.

    Splitting on every ";" would cut a statement whose string, comment or trigger body holds
    one; sqlite3.complete_statement knows where a statement really ends.
    """
    pending = ""
    for part in script.split(";"):
        pending += part + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \t\r\n;"):
                yield pending.strip()
            pending = ""
    if pending.strip(" \t\r\n;"):
        raise ValueError(f"incomplete SQL statement: {pending.strip()[:60]!r}")


def _execute_each(db: sqlite3.Connection, script: str) -> None:
    """Run statements one by one: executescript would commit the caller's transaction."""
    for statement in statements(script):
        db.execute(statement)


def pending(db: sqlite3.Connection) -> list[Step]:
    """The steps not yet applied to `db` (read without taking a lock)."""
    exists = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'").fetchone()
    done = {row[0] for row in db.execute("SELECT name FROM _migrations")} if exists else set()
    return [step for step in MIGRATIONS if step.__name__ not in done]


def migrate(db: sqlite3.Connection) -> None:
    """Bring `db` (autocommit mode) up to date: all pending steps or none of them."""
    if not pending(db):  # the common case costs two reads and no write lock
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        for step in pending(db):  # again, under the lock: another process may have just migrated
            step(db)
            db.execute("INSERT INTO _migrations VALUES (?, ?)", (step.__name__, now))
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


@migration
def m001_initial(db: sqlite3.Connection) -> None:
    _execute_each(
        db,
        """
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,            -- quiz | interview | review
            lang TEXT NOT NULL,
            started_at TEXT NOT NULL,
            ended_at TEXT
        );
        CREATE TABLE answers (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            item_id TEXT NOT NULL,
            topic TEXT NOT NULL,
            given TEXT NOT NULL,
            correct INTEGER NOT NULL,
            answered_at TEXT NOT NULL
        );
        CREATE INDEX answers_item ON answers(item_id);
        CREATE TABLE ratings (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            item_id TEXT NOT NULL,
            topic TEXT NOT NULL,
            response TEXT NOT NULL,
            rating INTEGER NOT NULL,       -- 1 Again, 2 Hard, 3 Good, 4 Easy (FSRS)
            rated_at TEXT NOT NULL
        );
        CREATE INDEX ratings_item ON ratings(item_id);
        CREATE TABLE srs (
            item_id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,            -- question | card
            topic TEXT NOT NULL,
            card_json TEXT NOT NULL,       -- fsrs.Card.to_json()
            due TEXT NOT NULL              -- ISO 8601, UTC
        );
        """,
    )


@migration
def m002_katas(db: sqlite3.Connection) -> None:
    _execute_each(
        db,
        """
        CREATE TABLE kata_events (
            id INTEGER PRIMARY KEY,
            kata TEXT NOT NULL,
            kind TEXT NOT NULL,            -- started | hint | gave_up
            detail TEXT NOT NULL DEFAULT '',
            at TEXT NOT NULL
        );
        CREATE TABLE kata_attempts (
            id INTEGER PRIMARY KEY,
            kata TEXT NOT NULL,
            file TEXT NOT NULL,
            passed INTEGER NOT NULL,
            score INTEGER NOT NULL,
            max_score INTEGER NOT NULL,
            counts TEXT NOT NULL,          -- JSON: passed, failed, error, skipped
            device TEXT NOT NULL,
            duration_s REAL NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX kata_attempts_kata ON kata_attempts(kata)
        """,
    )


@migration
def m003_attempt_provenance(db: sqlite3.Connection) -> None:
    """What a grading run needs to be replayed: its random seed and the sandbox it ran in."""
    _execute_each(
        db,
        """
        ALTER TABLE kata_attempts ADD COLUMN seed INTEGER;
        ALTER TABLE kata_attempts ADD COLUMN sandbox TEXT
        """,
    )


@migration
def m004_kata_activity(db: sqlite3.Connection) -> None:
    """One monotonic sequence over kata events and attempts: "the last kata" is its last row.

    Timestamps of two tables cannot order what happened within one second; AUTOINCREMENT
    never reuses a number. Older rows are carried over in their best-known order.
    """
    _execute_each(
        db,
        """
        CREATE TABLE kata_activity (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            kata TEXT NOT NULL,
            kind TEXT NOT NULL             -- an event kind (started | hint | gave_up) or 'attempt'
        );
        INSERT INTO kata_activity (kata, kind)
            SELECT kata, kind FROM (
                SELECT kata, kind, at, id, 0 AS source FROM kata_events
                UNION ALL
                SELECT kata, 'attempt', at, id, 1 FROM kata_attempts
            ) ORDER BY at, source, id
        """,
    )


@migration
def m005_review_logs(db: sqlite3.Connection) -> None:
    """Every FSRS review as fsrs's ReviewLog sees it, with its duration, so parameters can be fitted.

    `state_before` is the FSRS state the item was in (1 Learning, 2 Review, 3 Relearning): an
    Again in Review is a lapse. Answers and ratings from before this step are carried over
    without a duration or a state (they were never measured).
    """
    _execute_each(
        db,
        """
        CREATE TABLE review_logs (
            id INTEGER PRIMARY KEY,
            item_id TEXT NOT NULL,
            kind TEXT NOT NULL,            -- question | card
            topic TEXT NOT NULL,
            rating INTEGER NOT NULL,       -- 1 Again, 2 Hard, 3 Good, 4 Easy
            state_before INTEGER,          -- fsrs.State before the review; NULL when not known
            reviewed_at TEXT NOT NULL,     -- ISO 8601, UTC
            duration_ms INTEGER            -- from showing the item to its answer or rating
        );
        CREATE INDEX review_logs_item ON review_logs(item_id);
        INSERT INTO review_logs (item_id, kind, topic, rating, reviewed_at)
            SELECT item_id, kind, topic, rating, at FROM (
                SELECT item_id, 'question' AS kind, topic, CASE WHEN correct THEN 3 ELSE 1 END AS rating,
                       answered_at AS at, id, 0 AS source FROM answers
                UNION ALL
                SELECT item_id, 'card', topic, rating, rated_at, id, 1 FROM ratings
            ) ORDER BY at, source, id
        """,
    )


@migration
def m006_mock_interviews(db: sqlite3.Connection) -> None:
    """Mock interviews: one row per mock, one per question asked (a card or one of its follow-ups).

    An answer is saved the moment it is given; `made` (the key points the learner ticked, a JSON
    list of indexes) and `rating` are filled in at the debrief, so a mock stopped early keeps
    its answers.
    """
    _execute_each(
        db,
        """
        CREATE TABLE mock_interviews (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            topic TEXT,                    -- NULL: every topic
            minutes INTEGER NOT NULL,      -- the time allowed
            started_at TEXT NOT NULL,
            ended_at TEXT,
            seconds_used INTEGER           -- answering time, up to the end of the last answer
        );
        CREATE TABLE mock_answers (
            id INTEGER PRIMARY KEY,
            mock_id INTEGER NOT NULL REFERENCES mock_interviews(id),
            position INTEGER NOT NULL,     -- order asked, from 1
            card_id TEXT NOT NULL,
            follow_up INTEGER,             -- index into the card's follow-ups; NULL: the card itself
            answer TEXT NOT NULL,
            seconds INTEGER NOT NULL,
            points INTEGER NOT NULL,       -- key points to make (0 for a follow-up)
            made TEXT,                     -- JSON list of the key points ticked; NULL until the debrief
            rating INTEGER                 -- the FSRS rating the ticks gave; NULL until the debrief
        );
        CREATE INDEX mock_answers_mock ON mock_answers(mock_id)
        """,
    )


@migration
def m007_attempt_details(db: sqlite3.Connection) -> None:
    """Per-case results and named misconceptions of each grading run, for `normkata history --diff`.

    cases: JSON {case name: status}; diagnosis: JSON [{"id", "title"}]. NULL for older runs.
    """
    _execute_each(
        db,
        """
        ALTER TABLE kata_attempts ADD COLUMN cases TEXT;
        ALTER TABLE kata_attempts ADD COLUMN diagnosis TEXT
        """,
    )


@migration
def m008_learning_loop(db: sqlite3.Connection) -> None:
    """The learning loop: a passing kata file kept when the kata is written again, and fitted FSRS parameters.

    Katas themselves are scheduled in `srs` (kind 'kata', item id 'kata:<id>') and logged in
    `review_logs` like any item; a kata's rounds are marked by 'review' rows in `kata_events`
    (detail: JSON {"after_attempt": the last attempt id before the round}). Neither needs a
    new column.
    """
    _execute_each(
        db,
        """
        CREATE TABLE kata_kept (
            id INTEGER PRIMARY KEY,
            kata TEXT NOT NULL,
            file TEXT NOT NULL,            -- where it was in the workspace
            source TEXT NOT NULL,          -- the passing file's text, as it was when the kata came due
            kept_at TEXT NOT NULL
        );
        CREATE TABLE fsrs_parameters (
            id INTEGER PRIMARY KEY,
            parameters TEXT NOT NULL,      -- JSON list of floats, fsrs.Scheduler(parameters=...)
            reviews INTEGER NOT NULL,      -- review logs they were fitted on
            retention_before REAL,         -- mean predicted recall on those reviews, default parameters
            retention_after REAL,          -- the same with the fitted parameters
            recalled REAL,                 -- the share actually recalled
            fitted_at TEXT NOT NULL
        )
        """,
    )


@migration
def m009_schedule_passed_katas(db: sqlite3.Connection) -> None:
    """Katas passed before the learning loop come due too: each is scheduled from its first pass as
    an FSRS review rated Good (what happened in that round was not recorded for the rule), with
    no learning steps and no fuzz, like a kata passed now. No review log is written: that review
    was inferred, and `review --optimize` must learn only from reviews that happened."""
    from fsrs import Card, Rating, Scheduler

    scheduler = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    passes = db.execute(
        "SELECT kata, MIN(at) FROM kata_attempts WHERE passed != 0 GROUP BY kata ORDER BY kata"
    ).fetchall()
    for kata, first_pass in passes:
        item = f"kata:{kata}"
        if db.execute("SELECT 1 FROM srs WHERE item_id = ?", (item,)).fetchone():
            continue
        try:
            moment = datetime.fromisoformat(first_pass)
        except (TypeError, ValueError):
            continue  # a time nobody can read: left unscheduled rather than guessed
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        card, _log = scheduler.review_card(Card(due=moment), Rating.Good, review_datetime=moment)
        due = card.due.astimezone(timezone.utc).isoformat(timespec="seconds")
        db.execute(
            "INSERT INTO srs (item_id, kind, topic, card_json, due) VALUES (?, 'kata', ?, ?, ?)",
            (item, kata, card.to_json(), due),
        )


@migration
def m010_case_ids(db: sqlite3.Connection) -> None:
    """Attempts keep case ids, not the words of the language they were graded in: `cases` becomes
    JSON {case id: status} (`forward[2x5x8-cpu]`, normkata.content.suite_names), so that `history` shows
    them in the language of the moment and compares attempts graded in different languages.

    Each case name is read in either language against the kata's suite as it is now; a name
    neither language knows (its suite changed since) is kept as its own id and shown as it was.
    Misconceptions were kept by id already (`diagnosis`: [{"id", "title"}]).
    """
    from normkata.content.suite_names import cases_by_id

    rows = db.execute("SELECT id, kata, cases FROM kata_attempts WHERE cases IS NOT NULL").fetchall()
    for row_id, kata, cases in rows:
        db.execute("UPDATE kata_attempts SET cases = ? WHERE id = ?", (cases_by_id(str(kata), cases), row_id))


@migration
def m011_settings(db: sqlite3.Connection) -> None:
    """The learner's settings, by name: the interview date `plan --until` remembers (ISO date) and
    its minutes per day. A setting forgotten is an empty row, dated (record.store.FORGOTTEN)."""
    _execute_each(
        db,
        """
        CREATE TABLE settings (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            set_at TEXT NOT NULL           -- ISO 8601, UTC
        )
        """,
    )


@migration
def m012_imported_attempts(db: sqlite3.Connection) -> None:
    """Attempts carried in by `progress import` are marked: they count on the dashboard, but only a
    pass graded on this machine opens a kata's solution (a file can say anything about a grade)."""
    db.execute("ALTER TABLE kata_attempts ADD COLUMN imported INTEGER NOT NULL DEFAULT 0")
