"""`normkata gradebook merge`: the out folders of a class's shards joined into one gradebook.

Nothing of a shard is taken on trust: its signed manifest must verify with this machine's
grading key (normkata.classroom.signed), every file it lists must be the bytes it signed, and the
shards must belong together: one kata and one set of settings, one class run (its id), one class
listing (every submission's name and content digest alike in every shard), one count N, each of
shards 1..N exactly once, each complete, each row in its own shard and in no other, every row out
of one max_score. Anything else is refused with one line, and nothing is written. The merged
folder is what an unsharded grade-all of the class writes (a gradebook signed as 1/1); a folder
that already holds something is replaced only with `force`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from normkata.boundedjson import loads
from normkata.classroom.gradebook import GRADEBOOK, REPORTS
from normkata.classroom.key import grading_key
from normkata.classroom.outfolder import MAX_REPORT_BYTES, MAX_REPORT_DEPTH, OutFolder, sha256
from normkata.classroom.page import write_pages
from normkata.classroom.reasons import read_back
from normkata.classroom.shards import Shard
from normkata.classroom.signed import MAX_MANIFEST_BYTES, SIGNED, Manifest, SignedRow, Unsigned, seal, verified
from normkata.files import open_folder, read_file
from normkata.grading.contract import GradeResult
from normkata.grading.wire import from_wire
from normkata.i18n.worded import Worded

_REPORT_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.(json|md)")


@dataclass
class _Shard:
    path: Path
    manifest: Manifest
    reports: dict[str, bytes]  # file name in reports/ -> its verified bytes


def merge(outs: list[Path], out: Path, *, force: bool = False, results: tuple[str, ...] = ()) -> Manifest:
    """Verify the shards in `outs` and write the merged gradebook into `out`; InputError (one
    line, nothing written) for a missing, overlapping, incomplete, mismatched or forged shard, and
    for an `out` that holds anything already, unless `force`. `results`: formats of
    normkata.grading.formats written for every graded row too, as grade-all --format writes them."""
    there = OutFolder.what_is_there(out)
    if there is not None and not force:
        raise Worded("classroom.refuse.out_holds", out=out, there=there)
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
            raise Worded(
                "classroom.refuse.same_shard", a=by_index[index].path, b=shard.path, shard=shard.manifest.shard
            )
        by_index[index] = shard
    missing = [str(Shard(k, count)) for k in range(1, count + 1) if k not in by_index]
    if missing:
        raise Worded("classroom.refuse.missing_shard", missing=", ".join(missing), count=count)
    rows: dict[str, tuple[SignedRow, _Shard]] = {}
    for shard in shards:
        manifest = shard.manifest
        for signed in manifest.rows:
            name = signed.row.submission
            if name in rows:
                raise Worded("classroom.refuse.in_two", name=repr(name), a=rows[name][1].path, b=shard.path)
            if not manifest.shard.holds(name):
                raise Worded("classroom.refuse.misplaced", path=shard.path, name=repr(name), shard=manifest.shard)
            rows[name] = (signed, shard)
    for shard in shards:
        manifest = shard.manifest
        if len(manifest.rows) != manifest.assigned:
            raise Worded(
                "classroom.refuse.incomplete",
                path=shard.path,
                shard=manifest.shard,
                n=len(manifest.rows),
                assigned=manifest.assigned,
            )
    if len(rows) != first.manifest.class_size:
        raise Worded("classroom.refuse.class_size", n=len(rows), size=first.manifest.class_size)
    maxima = sorted({signed.row.max_score for signed, _ in rows.values() if signed.row.max_score is not None})
    if len(maxima) > 1:
        raise Worded("classroom.refuse.maxima", maxima=", ".join(map(str, maxima)))
    merged = Manifest(
        first.manifest.settings,
        Shard(),
        first.manifest.run,
        first.manifest.listing,
        first.manifest.class_size,
        [signed for signed, _ in rows.values()],
        {},
    )
    folder = OutFolder.open(out, Path(os.devnull), force=force, settings=merged.settings)
    try:
        for signed, shard in rows.values():
            row = signed.row
            if row.report:
                folder.write_report(
                    row, signed.kinds, shard.reports[f"{row.report}.json"], shard.reports[f"{row.report}.md"]
                )
        folder.suite_max = maxima[0] if maxima else None
        seal(folder, merged)
        pages = [(signed.row, _result_of(signed, shard), signed.kinds) for signed, shard in rows.values()]
        for row, result, _kinds in pages:
            if result is not None and results:
                folder.write_results(row.report, result, results, merged.settings.per_category)
        write_pages(folder, merged.settings.kata, pages, merged.settings.lang)
    finally:
        folder.close()
    return merged


def _result_of(signed: SignedRow, shard: _Shard) -> GradeResult | None:
    """The row's result, read back from its verified JSON report (None: not graded)."""
    if not signed.row.report:
        return None
    data = shard.reports[f"{signed.row.report}.json"]
    report = loads(data, max_bytes=MAX_REPORT_BYTES, max_depth=MAX_REPORT_DEPTH)
    return read_back(from_wire(GradeResult, report), signed.kinds)


def _same_class(first: _Shard, other: _Shard) -> None:
    a, b = first.manifest, other.manifest
    if a.settings != b.settings:
        raise Worded(
            "classroom.refuse.settings",
            b=other.path,
            b_settings=b.settings.describe(),
            a=first.path,
            a_settings=a.settings.describe(),
        )
    if a.shard.count != b.shard.count:
        raise Worded("classroom.refuse.count", b=other.path, b_shard=b.shard, a=first.path, a_shard=a.shard)
    if a.run != b.run:
        raise Worded("classroom.refuse.run", b=other.path, b_run=b.run, a=first.path, a_run=a.run)
    if a.listing.keys() != b.listing.keys():
        names = sorted(a.listing.keys() ^ b.listing.keys())
        raise Worded(
            "classroom.refuse.listing",
            b=other.path,
            a=first.path,
            b_size=b.class_size,
            a_size=a.class_size,
            name=repr(names[0]),
        )
    changed = sorted(name for name in a.listing if a.listing[name] != b.listing[name])
    if changed:
        raise Worded(
            "classroom.refuse.contents", b=other.path, a=first.path, name=repr(changed[0]), more=len(changed) - 1
        )


def _read_shard(path: Path, key: bytes) -> _Shard:
    """The shard's manifest and reports, each checked against what was signed."""
    try:
        fd = open_folder(path)
    except OSError as exc:
        raise Worded("classroom.refuse.not_shard_folder", path=path, why=exc.strerror) from None
    try:
        try:
            data = read_file(SIGNED, MAX_MANIFEST_BYTES, dir_fd=fd)
        except OSError:
            raise Worded("classroom.refuse.merge_unsigned", path=path, signed=SIGNED) from None
        try:
            manifest = verified(data, key)
        except Unsigned as exc:
            raise Worded("classroom.refuse.unsigned", path=f"{path}/{SIGNED}", why=exc.phrase) from None
        reports: dict[str, bytes] = {}
        for relative, digest in manifest.files.items():
            folder, _, name = relative.partition("/")
            if relative != GRADEBOOK and not (folder == REPORTS and _REPORT_FILE.fullmatch(name)):
                raise Worded("classroom.refuse.foreign_file", path=f"{path}/{SIGNED}", file=repr(relative))
            try:
                content = _read_in(fd, relative, name)
            except OSError:
                raise Worded("classroom.refuse.signed_missing", path=f"{path}/{relative}") from None
            if sha256(content) != digest:
                raise Worded("classroom.refuse.signed_changed", path=f"{path}/{relative}")
            if relative != GRADEBOOK:
                reports[name] = content
        for signed in manifest.rows:
            report = signed.row.report
            if report and not {f"{report}.json", f"{report}.md"} <= reports.keys():
                raise Worded(
                    "classroom.refuse.reports_unsigned", path=f"{path}/{SIGNED}", name=repr(signed.row.submission)
                )
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
