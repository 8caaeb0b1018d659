"""A gradebook's signed manifest, `gradebook.signed.json`: what `gradebook merge` trusts.

grade-all writes it beside gradebook.csv, for a whole class (shard 1/1) or for one shard. It
holds the kata and the settings every row was graded with (language, seed, case timeout,
device), the shard (K/N), the class run it belongs to (its id, normkata.classroom.shards.class_run)
and the class listing it was split from (every submission's name with the sha256 of its content
as this shard read it), the shard's rows, and the sha256 of gradebook.csv and of every report;
its `tag` is an HMAC-SHA256 of all of that, keyed by the teacher's grading key
(normkata.classroom.key).

What the signature protects against: a shard's out folder travels (a shared scratch folder, a
job artifact, a copy) between the machine that graded it and the one that merges. Whoever can
write there without holding the key (a student with access to the shared folder, a step of a
workflow, a mistaken copy) cannot change a score, a reason or a report, add, drop or move a row,
or pass off a shard graded with another seed, kata, timeout or class listing: the tag no longer
verifies and the merge refuses the shard. A signature proves who signed, not when: a shard
from an earlier run of the same class is as authentic as today's, so the merge also holds every
shard to one run id and one listing (the same contents of every submission). What it does not
protect against: anyone holding the key (the teacher's account on a grading machine), a shard
of this very run graded from files changed while it ran (its own listing is what it read), and
a submission that reads the key while it is graded where the sandbox is not complete
(`normkata doctor` shows the sandbox).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

from normkata.boundedjson import RefusedJSON, loads
from normkata.classroom.gradebook import GRADEBOOK, Row, Settings
from normkata.classroom.outfolder import OutFolder, canonical, sha256
from normkata.classroom.shards import MAX_SHARDS, RUN_ID, Shard

SIGNED = "gradebook.signed.json"
#: 2 added the class run's id and the listing's content digests (a format 1 shard is graded again).
FORMAT = 2
#: The largest signed manifest read: a row is well under 1 kB, a class a few thousand rows.
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
#: It nests five levels (itself, rows, a row, its columns, a value); a little room above that.
MAX_MANIFEST_DEPTH = 8
_SHA256 = frozenset("0123456789abcdef")
_DOMAIN = b"normkata gradebook v1\0"


@dataclass
class SignedRow:
    row: Row
    #: What the terminal summary counts for it (normkata.classroom.reasons).
    kinds: list[str]


@dataclass
class Manifest:
    settings: Settings
    shard: Shard
    run: str  # the class run's id: every shard of one run has it
    listing: dict[str, str]  # every submission of the whole class -> sha256 of its content ("" unreadable)
    assigned: int  # submissions this shard was to grade
    rows: list[SignedRow]
    files: dict[str, str]  # path in the out folder -> sha256, gradebook.csv included

    def body(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "settings": self.settings.to_json(),
            "shard": [self.shard.index, self.shard.count],
            "class": {"run": self.run, "listing": dict(sorted(self.listing.items()))},
            "assigned": self.assigned,
            "rows": [{"columns": r.row.cells(), "kinds": r.kinds} for r in sorted(self.rows, key=_name)],
            "files": dict(sorted(self.files.items())),
        }

    @property
    def class_size(self) -> int:
        return len(self.listing)

    def signed(self, key: bytes) -> bytes:
        body = self.body()
        return (json.dumps({**body, "tag": _tag(key, body)}, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def seal(folder: OutFolder, manifest: Manifest) -> None:
    """Write the manifest's rows as gradebook.csv (and the folder's rerun manifest), then the
    signed manifest over them, the gradebook's bytes and the reports the folder holds for them."""
    rows = [r.row for r in manifest.rows]
    gradebook = folder.write_gradebook(rows)
    manifest.files = {**folder.report_files(rows), GRADEBOOK: sha256(gradebook)}
    folder.write(SIGNED, manifest.signed(folder.key))


def _name(row: SignedRow) -> str:
    return row.row.submission


def _tag(key: bytes, body: dict[str, object]) -> str:
    return hmac.new(key, _DOMAIN + canonical(body), hashlib.sha256).hexdigest()


class Unsigned(ValueError):
    """The manifest does not verify with this key, or is not one."""


def verified(data: bytes, key: bytes) -> Manifest:
    """The manifest in `data` when its tag verifies with `key` and every field has its type;
    Unsigned otherwise (the message says which)."""
    try:
        document = loads(data, max_bytes=MAX_MANIFEST_BYTES, max_depth=MAX_MANIFEST_DEPTH)
    except RefusedJSON as exc:
        raise Unsigned(f"not a manifest: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("tag"), str):
        raise Unsigned("it has no signature")
    tag = document.pop("tag")
    if not hmac.compare_digest(tag, _tag(key, document)):
        raise Unsigned(
            "its signature does not verify with this grading key: it was changed after grading, or "
            "graded with another key"
        )
    try:
        if document["format"] != FORMAT:
            raise ValueError("format")
        index, count = document["shard"]
        if not (type(index) is int and type(count) is int and 1 <= index <= count <= MAX_SHARDS):
            raise ValueError("shard")
        rows = [SignedRow(Row.of(r["columns"]), [str(kind) for kind in r["kinds"]]) for r in document["rows"]]
        files = {str(path): str(digest) for path, digest in document["files"].items()}
        run, listing, assigned = document["class"]["run"], document["class"]["listing"], document["assigned"]
        if not (type(assigned) is int and isinstance(run, str) and RUN_ID.fullmatch(run)):
            raise ValueError("class")
        if not all(isinstance(d, str) and (d == "" or (len(d) == 64 and _SHA256 >= set(d))) for d in listing.values()):
            raise ValueError("listing")
        return Manifest(
            Settings.from_json(document["settings"]), Shard(index, count), run, dict(listing), assigned, rows, files
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise Unsigned("it is signed but not a manifest this normkata reads") from None
