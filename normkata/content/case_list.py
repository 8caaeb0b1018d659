"""A kata's hidden-suite cases as data (katas/<id>/cases.yaml): what `normkata grade KATA --list`
shows without starting a grader, which would import torch and pytest to collect them.

The file holds each category and each case's name in both languages, grouped by category, in the
order the suite runs them. It is generated from the suite and its titles, and checked against
them (tests/test_case_lists.py; `--update-golden` rewrites it after a suite or a title changes):
a listing reads this one small file and nothing else, as fast as `--help` allows.
"""

from __future__ import annotations

import json
from pathlib import Path

from normkata.i18n.text import Text

CASES_FILE = "cases.yaml"
CASES_FORMAT_VERSION = 1
#: Well above any suite's (the largest has about 60 cases); a bigger file is not read.
MAX_BYTES = 256 * 1024

_HEADER = (
    "# The hidden suite's cases by category, each in the order the suite runs them: what\n"
    "# `normkata grade {kata} --list` shows without starting a grader. Generated from suite.py and the\n"
    "# case titles by `.venv/bin/python -m pytest tests/test_case_lists.py --update-golden`, which checks it.\n"
)

Listing = list[tuple[Text, list[Text]]]


def case_list_path(kata_id: str) -> Path:
    from normkata.paths import katas_dir

    return katas_dir() / kata_id / CASES_FILE


def read_case_list(kata_id: str) -> Listing | None:
    """(category, its cases) for every category, or None where the kata has no usable list (no
    such kata, a kata written before lists were, a file that does not read): the caller then asks
    the suite itself."""
    path = case_list_path(kata_id)
    if "/" in kata_id or not path.is_file():
        return None
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            return None
        import yaml

        data = yaml.load(raw.decode("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        if not isinstance(data, dict) or data.get("format_version") != CASES_FORMAT_VERSION:
            return None
        return [(_text(group["category"]), [_text(case) for case in group["cases"]]) for group in data["cases"]]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        return None
    except Exception as exc:  # yaml.YAMLError, without importing yaml to name it
        if type(exc).__module__.startswith("yaml"):
            return None
        raise


def case_names(kata_id: str, lang: str) -> list[tuple[str, str]] | None:
    """(category, case name in `lang`) for every case, the category as the grader names it (its
    English label); None where the kata has no usable list."""
    listing = read_case_list(kata_id)
    if listing is None:
        return None
    return [(category.en, case.in_(lang)) for category, cases in listing for case in cases]


def _text(value: object) -> Text:
    if not isinstance(value, dict) or not isinstance(value["en"], str) or not isinstance(value["zh"], str):
        raise TypeError("a name in both languages")
    return Text(value["en"], value["zh"])


def case_list_text(kata_id: str, listing: Listing) -> str:
    """The file for `listing`."""

    def pair(text: Text) -> str:
        en, zh = (json.dumps(value, ensure_ascii=False) for value in (text.en, text.zh))
        return f"{{en: {en}, zh: {zh}}}"

    lines = [_HEADER.format(kata=kata_id).rstrip("\n"), f"format_version: {CASES_FORMAT_VERSION}", "cases:"]
    for category, cases in listing:
        lines += [f"  - category: {pair(category)}", "    cases:"]
        lines += [f"      - {pair(case)}" for case in cases]
    return "\n".join(lines) + "\n"
