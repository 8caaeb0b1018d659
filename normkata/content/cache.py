"""A parsed-bank cache, so that a quiz starts without YAML parsing and validation.

The cache is keyed by a hash of every bank file's name and bytes (a new, removed or edited
topic file is a miss) and of the code that turns them into a Bank (a changed schema is a miss
too). It is a speed-up only: a missing, unreadable, corrupt or foreign file is ignored and
the bank parsed as usual, and a file is replaced atomically, so concurrent runs never see
half of one.

The bank is stored as plain data with marshal, which is built into the interpreter and
creates nothing but strings, numbers and containers: each item is a row of its fields'
values (a Text as two strings), and reading a cache file never imports a module or runs
code. Each row is passed to its class's constructor, so a row of the wrong shape is an
error, and an error of any kind means the files are parsed.
"""

from __future__ import annotations

import dataclasses
import marshal
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from normkata.content.model import Bank, Card, Question, Topic
from normkata.content.reading import MAX_YAML_BYTES
from normkata.files import read_file
from normkata.i18n.text import Text

try:  # CPython's own BLAKE2: hashlib would load OpenSSL first, a few ms of every quiz's start
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import blake2b

_FORMAT = b"normkata-bank-cache 4"
_KEY_SIZE = 20
#: A cached bank is a few hundred kilobytes of marshal.
MAX_CACHE_BYTES = 64 * 1024 * 1024
_PACKAGE = Path(__file__).resolve().parent
#: The code that shapes a parsed Bank: a change to any of it must invalidate the cache.
_CODE = ("bank.py", "cache.py", "model.py", "schema.py", "study.py", "study_checks.py", "typography.py", "yamlnodes.py")


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
        data = read_file(file, MAX_YAML_BYTES, follow_links=True)  # Refused (an OSError): a FIFO, a file no bank can be
        digest.update(f"{file.name}\0{len(data)}\0".encode() + data)
    return digest.digest()


def file_for(folder: Path) -> Path:
    """The cache file of the bank in `folder`, in this home's cache folder."""
    name = blake2b(str(folder.resolve()).encode(), digest_size=8).hexdigest()
    return cache_dir() / f"bank-{name}.marshal"


def read(folder: Path, expected: bytes) -> Bank | None:
    """The cached Bank for `folder` when its key is `expected`; None on any problem."""
    try:
        # A FIFO in its place is no cache, never waited on.
        data = read_file(file_for(folder), MAX_CACHE_BYTES, follow_links=True)
        if data[:_KEY_SIZE] != expected:
            return None
        topics, questions, cards, files = marshal.loads(data[_KEY_SIZE:])
        return Bank(
            topics={topic.id: topic for topic in _decode(Topic, topics)},
            questions=_decode(Question, questions),
            cards=_decode(Card, cards),
            files=[Path(f) for f in files],
        )
    except Exception:  # noqa: BLE001  a cache problem of any kind means: parse the files
        return None


def write(folder: Path, stored_key: bytes, bank: Bank) -> None:
    """Save `bank` under `stored_key`, atomically; a folder that cannot be written is no error."""
    plain = (
        _encode(Topic, list(bank.topics.values())),
        _encode(Question, bank.questions),
        _encode(Card, bank.cards),
        [str(f) for f in bank.files],
    )
    _save(file_for(folder), stored_key, plain)


# -- other parsed content: plain values under a stamp of the files they were read from -----------


def stamp_of(*files: Path) -> bytes | None:
    """A digest of these files' bytes (the content and the code that reads it); None when one cannot be read."""
    digest = blake2b(_FORMAT + sys.version.encode(), digest_size=_KEY_SIZE)
    try:
        for file in files:
            data = read_file(file, MAX_YAML_BYTES, follow_links=True)
            digest.update(f"{file.name}\0{len(data)}\0".encode() + data)
    except OSError:
        return None
    return digest.digest()


def digest(text: bytes) -> bytes:
    """A stamp of `text` (what a cached value was made from), the size every stamp here has."""
    return blake2b(_FORMAT + sys.version.encode() + text, digest_size=_KEY_SIZE).digest()


def read_plain(name: str, stamp: bytes) -> Any | None:
    """The value saved as `name` under `stamp`; None on any problem (a miss)."""
    try:
        data = read_file(cache_dir() / f"{name}.marshal", MAX_CACHE_BYTES, follow_links=True)
        return marshal.loads(data[_KEY_SIZE:]) if data[:_KEY_SIZE] == stamp else None
    except Exception:  # noqa: BLE001  a cache problem of any kind means: parse the file
        return None


def write_plain(name: str, stamp: bytes, value: Any) -> None:
    """Save `value` (strings, numbers and containers only) as `name` under `stamp`."""
    _save(cache_dir() / f"{name}.marshal", stamp, value)


def _save(target: Path, stored_key: bytes, plain: Any) -> None:
    """`stored_key` and `plain` in marshal, written atomically; a folder that cannot be written is no error."""
    import tempfile

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".cache-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(stored_key + marshal.dumps(plain))
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return


# -- items as rows of plain values, one per field in the dataclass's order -------------------

_Convert = Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


#: How a field of each annotation is stored and read back; any other annotation naming a
#: Text is refused when writing (so a new kind of field means no cache, never a wrong one).
_FIELD_KINDS: dict[str, tuple[_Convert, _Convert]] = {
    "Text": (lambda t: (t.en, t.zh), lambda v: Text(*v)),
    "tuple[Text, ...]": (lambda ts: tuple((t.en, t.zh) for t in ts), lambda v: tuple(Text(*t) for t in v)),
    "tuple[tuple[Text, ...], ...]": (
        lambda lists: tuple(tuple((t.en, t.zh) for t in ts) for ts in lists),
        lambda v: tuple(tuple(Text(*t) for t in ts) for ts in v),
    ),
}


def _fields(cls: type) -> list[tuple[str, _Convert, _Convert]]:
    """Each field of `cls` with its (encode, decode) pair."""
    found = []
    for field in dataclasses.fields(cls):
        kind = str(field.type)
        if kind not in _FIELD_KINDS and "Text" in kind:
            raise TypeError(f"{cls.__name__}.{field.name}: no cached form for {kind}")
        encode, decode = _FIELD_KINDS.get(kind, (_same, _same))
        found.append((field.name, encode, decode))
    return found


def _encode(cls: type, items: list[Any]) -> list[tuple[Any, ...]]:
    fields = _fields(cls)
    return [tuple(encode(getattr(item, name)) for name, encode, _decode in fields) for item in items]


def _decode(cls: type, rows: list[tuple[Any, ...]]) -> list[Any]:
    decoders = [decode for _name, _encode, decode in _fields(cls)]
    return [cls(*(decode(value) for decode, value in zip(decoders, row, strict=True))) for row in rows]
