"""JSON that someone else wrote, parsed only within a size and a nesting bound.

Python's parser recurses: a file of 200 000 nested arrays ends in a RecursionError (a
traceback), and a 4 GB file is read whole before it is refused. Every reader of a file
normkata did not just write (a progress file to import, a shard's signed manifest, an out
folder's rerun manifest and reports) parses through `loads`, which measures both first.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: A JSON string, escapes included (brackets inside one do not nest), written unrolled so that a
#: long string costs one pass.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class RefusedJSON(ValueError):
    """Not JSON, or JSON beyond a bound; the message says which, in a few words."""


def check_depth(text: str, limit: int) -> None:
    """RefusedJSON when `text` nests arrays and objects deeper than `limit`, found without parsing."""
    depth = 0
    for bracket in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > limit:
            raise RefusedJSON(f"nests arrays or objects deeper than {limit} levels")


def loads(data: bytes | str, *, max_bytes: int, max_depth: int) -> Any:
    """The value `data` holds (UTF-8 bytes, a byte-order mark allowed, or text), once it is
    proven at most `max_bytes` long (characters, for text) and `max_depth` deep; RefusedJSON otherwise."""
    if len(data) > max_bytes:
        raise RefusedJSON(f"larger than {max_bytes} bytes ({len(data)})")
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RefusedJSON(f"not UTF-8 (byte {exc.start})") from None
    else:
        text = data
    check_depth(text, max_depth)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RefusedJSON(f"not JSON ({str(exc).splitlines()[0][:120]})") from None
