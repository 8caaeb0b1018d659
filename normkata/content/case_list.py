"""A kata's hidden-suite cases as data (katas/<id>/cases.yaml): what `normkata grade KATA --list`
shows without starting a grader, which would import torch and pytest to collect them.

The file holds each case's id (its pytest name without `test_`) under its category, in the
order the suite runs them; the words come from the titles (normkata.content.suite_names), in
the learner's language. It is written from the suite itself and checked against it
(tests/test_case_lists.py; `--update-golden` rewrites it after a suite changes).
"""

from __future__ import annotations

import json
from pathlib import Path

from normkata.content.yamlnodes import YamlSyntaxError, read_yaml_file
from normkata.errors import InputError

CASES_FILE = "cases.yaml"
CASES_FORMAT_VERSION = 1

_HEADER = (
    "# The hidden suite's cases by category, in the order it runs them: what `normkata grade {kata}\n"
    "# --list` shows without starting a grader. Written from suite.py by\n"
    "# `.venv/bin/python -m pytest tests/test_case_lists.py --update-golden`, which checks it too.\n"
)


def case_list_path(kata_id: str) -> Path:
    from normkata.paths import katas_dir

    return katas_dir() / kata_id / CASES_FILE


def read_case_list(kata_id: str) -> list[tuple[str, str]] | None:
    """(category, case id) for every case, or None where the kata has no usable list (a kata
    written before lists were, a hand-edited file): the caller asks the suite instead."""
    path = case_list_path(kata_id)
    if not path.is_file():
        return None
    try:
        data = read_yaml_file(path)
    except (OSError, InputError, YamlSyntaxError):
        return None
    if not isinstance(data, dict) or data.get("format_version") != CASES_FORMAT_VERSION:
        return None
    listed = data.get("cases")
    if not isinstance(listed, dict):
        return None
    cases = []
    for category, ids in listed.items():
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            return None
        cases += [(str(category), str(i)) for i in ids]
    return cases


def case_list_text(kata_id: str, cases: list[tuple[str, str]]) -> str:
    """The file for `cases` ((category, case id), in the suite's order)."""
    by_category: dict[str, list[str]] = {}
    for category, case_id in cases:
        by_category.setdefault(category, []).append(case_id)
    lines = [_HEADER.format(kata=kata_id).rstrip("\n"), f"format_version: {CASES_FORMAT_VERSION}", "cases:"]
    for category, ids in by_category.items():
        lines.append(f"  {category}:")
        lines += [f"    - {json.dumps(i, ensure_ascii=False)}" for i in ids]
    return "\n".join(lines) + "\n"
