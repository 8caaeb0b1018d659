"""`progress import` of the same file twice: the second import must cost what the first did.

A file of N sessions, each with an answer and a review log (3N rows), imported into a fresh
record, then again (nothing new). Run: python benchmarks/progress_import.py [N] (default 20000).
Measured on one machine: before, 0.57 s then 62 s (a table scan per row already
there); after, 1.2 s then 1.3 s (one dictionary per table; the first import now also checks every
value for meaning).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path


def main() -> None:
    from normkata.record.migrations import MIGRATIONS
    from normkata.record.store import Store, iso, utcnow
    from normkata.record.transfer import import_document, read_document

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    start = utcnow() - timedelta(minutes=n + 60)
    stamps = [iso(start + timedelta(minutes=i)) for i in range(n)]
    document = {
        "format": "normkata-progress",
        "version": 1,
        "schema": [step.__name__ for step in MIGRATIONS],
        "tables": {
            "sessions": [
                {"id": i, "kind": "quiz", "lang": "en", "started_at": at, "ended_at": at}
                for i, at in enumerate(stamps, start=1)
            ],
            "answers": [
                {
                    "id": i,
                    "session_id": i,
                    "item_id": "rms-formula",
                    "topic": "rmsnorm",
                    "given": "B",
                    "correct": 1,
                    "answered_at": at,
                }
                for i, at in enumerate(stamps, start=1)
            ],
            "review_logs": [
                {
                    "id": i,
                    "item_id": "rms-formula",
                    "kind": "question",
                    "topic": "rmsnorm",
                    "rating": 3,
                    "state_before": 2,
                    "reviewed_at": at,
                    "duration_ms": 1000,
                }
                for i, at in enumerate(stamps, start=1)
            ],
        },
    }
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "progress.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        print(f"{path.stat().st_size / 1e6:.1f} MB: {n} sessions, {n} answers, {n} review logs")
        store = Store(Path(folder) / "normkata.db")
        try:
            for which in ("first import", "second import"):
                started = time.perf_counter()
                added = import_document(store, read_document(path))
                print(f"{which}: {time.perf_counter() - started:.2f} s, {sum(added.rows.values())} rows added")
        finally:
            store.close()


if __name__ == "__main__":
    main()
