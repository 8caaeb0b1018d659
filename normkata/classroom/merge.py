"""`normkata gradebook merge`: the out folders of a class's shards joined into one gradebook.

Nothing of a shard is taken on trust: its signed manifest must verify with this machine's
grading key (normkata.classroom.signed), every file it lists must be the bytes it signed, and the
shards must belong together: one kata and one set of settings, one class listing, one count N,
each of shards 1..N exactly once, each complete, each row in its own shard and in no other, every
row out of one max_score. Anything else is refused with one line, and nothing is written. The
merged folder is what an unsharded grade-all of the class writes (a gradebook signed as 1/1).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from normkata.classroom.gradebook import GRADEBOOK, REPORTS
from normkata.classroom.key import grading_key
from normkata.classroom.outfolder import MAX_REPORT_BYTES, OutFolder, sha256
from normkata.classroom.shards import Shard
from normkata.classroom.signed import SIGNED, Manifest, SignedRow, Unsigned, seal, verified
from normkata.errors import InputError
from normkata.files import open_folder, read_file

#: The largest signed manifest read: a row is well under 1 kB, a class a few thousand rows.
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
_REPORT_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.(json|md)")


@dataclass
class _Shard:
    path: Path
    manifest: Manifest
    reports: dict[str, bytes]  # file name in reports/ -> its verified bytes


def merge(outs: list[Path], out: Path) -> Manifest:
    """Verify the shards in `outs` and write the merged gradebook into `out`; InputError (one
    line, nothing written) for a missing, overlapping, incomplete, mismatched or forged shard."""
    key = grading_key()
    shards = [_read_shard(path, key) for path in outs]
    first = shards[0]
    count = first.manifest.shard.count
    for shard in shards[1:]:
        _same_class(first, shard)
    by_index: dict[int, _Shard] = {}
    for shard in shards:
        index = shard.manifest.shard.index
        if index in by_index:
            raise InputError(
                f"{by_index[index].path} and {shard.path} are both shard {shard.manifest.shard}: "
                "each shard is merged once"
            )
        by_index[index] = shard
    missing = [str(Shard(k, count)) for k in range(1, count + 1) if k not in by_index]
    if missing:
        raise InputError(
            f"shard {', '.join(missing)} missing: a class graded in {count} shards is merged from all "
            f"{count} out folders"
        )
    rows: dict[str, tuple[SignedRow, _Shard]] = {}
    for shard in shards:
        manifest = shard.manifest
        for signed in manifest.rows:
            name = signed.row.submission
            if name in rows:
                raise InputError(f"submission {name!r} is in both {rows[name][1].path} and {shard.path}")
            if not manifest.shard.holds(name):
                raise InputError(f"{shard.path}: submission {name!r} does not belong to shard {manifest.shard}")
            rows[name] = (signed, shard)
    for shard in shards:
        manifest = shard.manifest
        if len(manifest.rows) != manifest.assigned:
            raise InputError(
                f"{shard.path}: shard {manifest.shard} holds {len(manifest.rows)} of its "
                f"{manifest.assigned} submissions (interrupted?): run its grade-all again"
            )
    if len(rows) != first.manifest.class_size:
        raise InputError(f"the shards hold {len(rows)} of the class's {first.manifest.class_size} submissions")
    maxima = sorted({signed.row.max_score for signed, _ in rows.values() if signed.row.max_score is not None})
    if len(maxima) > 1:
        raise InputError(
            f"rows are graded out of different maxima ({', '.join(map(str, maxima))}): grade every shard on the "
            "same kind of machine, or with --device cpu"
        )
    merged = Manifest(
        first.manifest.settings,
        Shard(),
        first.manifest.class_size,
        first.manifest.class_names,
        first.manifest.class_size,
        [signed for signed, _ in rows.values()],
        {},
    )
    folder = OutFolder.open(out, Path(os.devnull), force=False, settings=merged.settings)
    try:
        for signed, shard in rows.values():
            row = signed.row
            if row.report:
                folder.write_report(
                    row, signed.kinds, shard.reports[f"{row.report}.json"], shard.reports[f"{row.report}.md"]
                )
        folder.suite_max = maxima[0] if maxima else None
        seal(folder, merged)
    finally:
        folder.close()
    return merged


def _same_class(first: _Shard, other: _Shard) -> None:
    a, b = first.manifest, other.manifest
    if a.settings != b.settings:
        raise InputError(
            f"{other.path} was graded with {_describe(b)}, {first.path} with {_describe(a)}: the "
            "shards of one class share the kata, language, seed, case timeout and device"
        )
    if a.shard.count != b.shard.count:
        raise InputError(f"{other.path} is shard {b.shard}, {first.path} shard {a.shard}: one class, one count")
    if (a.class_size, a.class_names) != (b.class_size, b.class_names):
        raise InputError(
            f"{other.path} and {first.path} were split from different class folders "
            f"({b.class_size} and {a.class_size} submissions, or other names)"
        )


def _describe(manifest: Manifest) -> str:
    s = manifest.settings
    seed = "fresh seeds" if s.seed is None else f"seed {s.seed}"
    return f"{s.kata}, {s.lang}, {seed}, {s.timeout:g} s, {s.device}"


def _read_shard(path: Path, key: bytes) -> _Shard:
    """The shard's manifest and reports, each checked against what was signed."""
    try:
        fd = open_folder(path)
    except OSError as exc:
        raise InputError(f"{path}: not a grade-all out folder ({exc.strerror}; links are not followed)") from None
    try:
        try:
            data = read_file(SIGNED, MAX_MANIFEST_BYTES, dir_fd=fd)
        except OSError:
            raise InputError(
                f"{path}: no {SIGNED}: not an out folder of grade-all (or graded before shards "
                "were signed: grade it again)"
            ) from None
        try:
            manifest = verified(data, key)
        except Unsigned as exc:
            raise InputError(f"{path}/{SIGNED}: {exc}") from None
        reports: dict[str, bytes] = {}
        for relative, digest in manifest.files.items():
            folder, _, name = relative.partition("/")
            if relative != GRADEBOOK and not (folder == REPORTS and _REPORT_FILE.fullmatch(name)):
                raise InputError(f"{path}/{SIGNED}: lists {relative!r}, which no grade-all writes")
            try:
                content = _read_in(fd, relative, name)
            except OSError:
                raise InputError(f"{path}/{relative}: missing or not a regular file, though signed") from None
            if sha256(content) != digest:
                raise InputError(f"{path}/{relative} is not what was signed: changed or replaced after grading")
            if relative != GRADEBOOK:
                reports[name] = content
        for signed in manifest.rows:
            report = signed.row.report
            if report and not {f"{report}.json", f"{report}.md"} <= reports.keys():
                raise InputError(f"{path}/{SIGNED}: the reports of {signed.row.submission!r} are not signed")
        return _Shard(path, manifest, reports)
    finally:
        os.close(fd)


def _read_in(fd: int, relative: str, name: str) -> bytes:
    if relative == GRADEBOOK:
        return read_file(GRADEBOOK, MAX_MANIFEST_BYTES, dir_fd=fd)
    reports = open_folder(REPORTS, dir_fd=fd)
    try:
        return read_file(name, MAX_REPORT_BYTES, dir_fd=reports)
    finally:
        os.close(reports)
