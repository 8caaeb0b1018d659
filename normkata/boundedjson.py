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

#: An escape inside a JSON string (`\\"` does not end it); outside one it is no JSON at all.
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
#: Every byte but what decides nesting: quotes and brackets (ASCII, so never part of a UTF-8
#: sequence of another character).
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')


class RefusedJSON(ValueError):
    """Not JSON, or JSON beyond a bound; the message says which, in a few words."""


def check_depth(text: str | bytes, limit: int) -> None:
    """RefusedJSON when `text` nests arrays and objects deeper than `limit`, found without parsing.

    Escapes out, then every byte but quotes and brackets, then the strings that held no bracket
    (now `""`), then every other piece between quotes (the insides of the strings left): what
    remains are the brackets outside strings. Each step is one pass in C (a regular expression
    matching each string took twice json.loads on a 2.7 MB manifest; this takes a third)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    structure = _ESCAPE.sub(b"", data).translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    outside = b"".join(structure.split(b'"')[::2])
    depth = 0
    for bracket in outside:
        depth += 1 if bracket in b"[{" else -1
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
    check_depth(data, max_depth)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RefusedJSON(f"not JSON ({str(exc).splitlines()[0][:120]})") from None
