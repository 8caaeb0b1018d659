"""A gradebook's signed manifest, `gradebook.signed.json`: what `gradebook merge` trusts.

grade-all writes it beside gradebook.csv, for a whole class (shard 1/1) or for one shard. It
holds the kata and the settings every row was graded with (language, seed, case timeout,
device), the shard (K/N), the class it was split from (how many submissions, and a digest of
all their names), the shard's rows, and the sha256 of gradebook.csv and of every report; its
`tag` is an HMAC-SHA256 of all of that, keyed by the teacher's grading key
(normkata.classroom.key).

What the signature protects against: a shard's out folder travels (a shared scratch folder, a
job artifact, a copy) between the machine that graded it and the one that merges. Whoever can
write there without holding the key (a student with access to the shared folder, a step of a
workflow, a mistaken copy) cannot change a score, a reason or a report, add, drop or move a row,
or pass off a shard graded with another seed, kata, timeout or class listing: the tag no longer
verifies and the merge refuses the shard. What it does not protect against: anyone holding the
key (the teacher's account on a grading machine), and a submission that reads the key while
it is graded where the sandbox is not complete (`normkata doctor` shows the sandbox).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

from normkata.classroom.gradebook import GRADEBOOK, Row, Settings
from normkata.classroom.outfolder import OutFolder, canonical, sha256
from normkata.classroom.shards import MAX_SHARDS, Shard

SIGNED = "gradebook.signed.json"
FORMAT = 1
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
    class_size: int  # submissions in the whole class, before the split
    class_names: str  # class_digest of all their names
    assigned: int  # submissions this shard was to grade
    rows: list[SignedRow]
    files: dict[str, str]  # path in the out folder -> sha256, gradebook.csv included

    def body(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "settings": self.settings.to_json(),
            "shard": [self.shard.index, self.shard.count],
            "class": {"submissions": self.class_size, "names": self.class_names},
            "assigned": self.assigned,
            "rows": [{"columns": r.row.cells(), "kinds": r.kinds} for r in sorted(self.rows, key=_name)],
            "files": dict(sorted(self.files.items())),
        }

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


def class_digest(names: list[str]) -> str:
    """The class listing a shard was split from: every submission's name, sorted, hashed."""
    return hashlib.sha256("\n".join(sorted(names)).encode("utf-8", "backslashreplace")).hexdigest()


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
        document = json.loads(data)
    except ValueError:
        raise Unsigned("it is not JSON") from None
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
        size, names, assigned = document["class"]["submissions"], document["class"]["names"], document["assigned"]
        if not (type(size) is int and type(assigned) is int and isinstance(names, str)):
            raise ValueError("class")
        return Manifest(
            Settings.from_json(document["settings"]), Shard(index, count), size, names, assigned, rows, files
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise Unsigned("it is signed but not a manifest this normkata reads") from None
