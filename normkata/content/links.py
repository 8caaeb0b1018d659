"""The misconception links: `katas/misconceptions.yaml`, misconception id -> the bank items that teach it.

Content, read by the quiz before its first question (to spread a quiz over different facts), by
`next`, the dashboard and every grade that names a mistake. Its parse is kept in the content
cache (normkata.content.cache), keyed by the file's bytes and this module's code, so a quiz starts
without importing a YAML parser; a file with problems is parsed every time, so they are reported.
"""

from __future__ import annotations

from pathlib import Path

from normkata.content.model import ContentIssue, Message

LINKS_FORMAT_VERSION = 1
LINKS_FILE = "misconceptions.yaml"


def links_path() -> Path:
    from normkata.paths import katas_dir

    return katas_dir() / LINKS_FILE


def load_links(path: Path | None = None) -> tuple[dict[str, tuple[str, ...]], list[ContentIssue]]:
    """misconception id -> item ids, and the file's problems (its shape only; ids are `check_links`')."""
    from normkata.content import cache

    path = path or links_path()
    stamp = cache.stamp_of(path, Path(__file__))
    if stamp is not None and (kept := cache.read_plain("links", stamp)) is not None:
        return {str(k): tuple(v) for k, v in kept.items()}, []
    links, issues = _parse(path)
    if stamp is not None and not issues:
        cache.write_plain("links", stamp, links)
    return links, issues


def _parse(path: Path) -> tuple[dict[str, tuple[str, ...]], list[ContentIssue]]:
    from normkata.content.yamlnodes import LineDict, LineList, YamlSyntaxError, read_yaml_file

    if not path.is_file():
        return {}, [ContentIssue(str(path), 1, "", Message("check.kata.missing_file"))]
    try:
        data = read_yaml_file(path)
    except YamlSyntaxError as exc:
        return {}, [ContentIssue(str(path), exc.line, "", exc.said)]
    if not isinstance(data, LineDict) or set(data) != {"format_version", "links"}:
        return {}, [ContentIssue(str(path), 1, "", Message("check.links.shape"))]
    if data["format_version"] != LINKS_FORMAT_VERSION:
        return {}, [
            ContentIssue(
                str(path),
                data.key_lines["format_version"],
                "format_version",
                Message.of("check.version.bare", want=LINKS_FORMAT_VERSION),
            )
        ]
    links, issues = {}, []
    table = data["links"]
    if not isinstance(table, LineDict):
        return {}, [ContentIssue(str(path), data.key_lines["links"], "links", Message("check.mapping"))]
    for key, items in table.items():
        line = table.key_lines.get(key, table.line)
        if not isinstance(items, LineList) or not all(isinstance(i, str) for i in items):
            issues.append(ContentIssue(str(path), line, f"links.{key}", Message("check.links.ids")))
            continue
        links[str(key)] = tuple(items)
    return links, issues
