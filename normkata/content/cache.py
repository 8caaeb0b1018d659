"""A parsed-bank cache, so that a quiz starts without YAML parsing and validation.

The cache is keyed by a hash of every bank file's name and bytes (a new, removed or edited
topic file is a miss) and of the code that turns them into a Bank (a changed schema is a miss
too). It is a speed-up only: a missing, unreadable, corrupt or foreign file is ignored and
the bank parsed as usual, and a file is replaced atomically, so concurrent runs never see
half of one.

The bank is stored as plain data (strings, numbers, tuples, lists, dicts) with marshal, which
is built into the interpreter and creates no object but those: reading a cache file never
imports a module or runs code, and needs no pickle.
"""

from __future__ import annotations

import dataclasses
import marshal
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from normkata.content.model import Card, Question, Text, TextList, Topic

try:  # CPython's own BLAKE2: hashlib would load OpenSSL first, a few ms of every quiz's start
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import blake2b

if TYPE_CHECKING:
    from normkata.content.bank import Bank

_FORMAT = b"normkata-bank-cache 2"
_KEY_SIZE = 20
_PACKAGE = Path(__file__).resolve().parent
#: The code that shapes a parsed Bank: a change to any of it must invalidate the cache.
_CODE = ("bank.py", "cache.py", "model.py", "schema.py", "typography.py", "yamlnodes.py")
#: The item classes a cache file may name (a dict's "__" key).
_CLASSES: dict[str, type] = {"Question": Question, "Card": Card, "Topic": Topic}


def cache_dir() -> Path:
    """NORMKATA_HOME/cache when NORMKATA_HOME is set (tests, several learners), else the
    platform's user cache folder."""
    home = os.environ.get("NORMKATA_HOME")
    if home:
        return Path(home).expanduser() / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir("normkata", appauthor=False))


def key(folder: Path, files: list[Path]) -> bytes:
    """A digest of the bank files' names and bytes and of the parsing code; OSError if one vanished."""
    digest = blake2b(_FORMAT, digest_size=_KEY_SIZE)
    digest.update(sys.version.encode())
    for name in _CODE:
        digest.update(name.encode() + b"\0" + (_PACKAGE / name).read_bytes() + b"\0")
    digest.update(str(folder.resolve()).encode() + b"\0")
    for file in files:
        data = file.read_bytes()
        digest.update(f"{file.name}\0{len(data)}\0".encode() + data)
    return digest.digest()


def _path(folder: Path) -> Path:
    name = blake2b(str(folder.resolve()).encode(), digest_size=8).hexdigest()
    return cache_dir() / f"bank-{name}.marshal"


def read(folder: Path, expected: bytes) -> Bank | None:
    """The cached Bank for `folder` when its key is `expected`; None on any problem."""
    from normkata.content.bank import Bank

    try:
        data = _path(folder).read_bytes()
        if data[:_KEY_SIZE] != expected:
            return None
        topics, questions, cards, files = marshal.loads(data[_KEY_SIZE:])
        return Bank(
            topics={topic.id: topic for topic in map(_decode, topics)},
            questions=[_decode(q) for q in questions],
            cards=[_decode(c) for c in cards],
            files=[Path(f) for f in files],
        )
    except Exception:  # noqa: BLE001  a cache problem of any kind means: parse the files
        return None


def write(folder: Path, stored_key: bytes, bank: Bank) -> None:
    """Save `bank` under `stored_key`, atomically; a folder that cannot be written is no error."""
    import tempfile

    target = _path(folder)
    plain = (
        [_encode(t) for t in bank.topics.values()],
        [_encode(q) for q in bank.questions],
        [_encode(c) for c in bank.cards],
        [str(f) for f in bank.files],
    )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".bank-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(stored_key + marshal.dumps(plain))
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return


def _encode(value: Any) -> Any:
    """Plain data for marshal: an item becomes a dict naming its class, a Text a two-string
    list, a TextList a list of two tuples; tuples, strings and numbers stay as they are."""
    if isinstance(value, Text):
        return [value.en, value.zh]
    if isinstance(value, TextList):
        return [tuple(value.en), tuple(value.zh)]
    if isinstance(value, Question | Card | Topic):
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"__": type(value).__name__, **fields}
    if isinstance(value, tuple):
        return tuple(_encode(v) for v in value)
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        en, zh = value
        return TextList(en, zh) if isinstance(en, tuple) else Text(en, zh)
    if isinstance(value, dict):
        fields = {name: _decode(v) for name, v in value.items() if name != "__"}
        return _CLASSES[value["__"]](**fields)
    if isinstance(value, tuple):
        return tuple(_decode(v) for v in value)
    return value
