"""A parsed-bank cache, so that a quiz starts without YAML parsing and validation.

The cache is keyed by a hash of every bank file's name and bytes (a new, removed or edited
topic file is a miss) and of the code that turns them into a Bank (a changed schema is a miss
too). It is a speed-up only: a missing, unreadable, corrupt or foreign file is ignored and
the bank parsed as usual, and a file is replaced atomically, so concurrent runs never see
half of one.
"""

from __future__ import annotations

import io
import os
import pickle
import sys
from pathlib import Path
from typing import TYPE_CHECKING

try:  # CPython's own BLAKE2: hashlib would load OpenSSL first, a few ms of every quiz's start
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import blake2b

if TYPE_CHECKING:
    from normkata.content.bank import Bank

_FORMAT = b"normkata-bank-cache 1"
_PACKAGE = Path(__file__).resolve().parent
#: The code that shapes a parsed Bank: a change to any of it must invalidate the cache.
_CODE = ("bank.py", "model.py", "schema.py", "typography.py", "yamlnodes.py")
#: The only classes a cache file may name, so that a planted file cannot run code when read.
_ALLOWED = {
    ("normkata.content.bank", "Bank"),
    ("normkata.content.model", "Topic"),
    ("normkata.content.model", "Question"),
    ("normkata.content.model", "Card"),
    ("normkata.content.model", "Text"),
    ("normkata.content.model", "TextList"),
    ("pathlib", "PosixPath"),
    ("pathlib", "WindowsPath"),
    ("pathlib", "Path"),
}


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
    digest = blake2b(_FORMAT, digest_size=20)
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
    return cache_dir() / f"bank-{name}.pickle"


def read(folder: Path, expected: bytes) -> Bank | None:
    """The cached Bank for `folder` when its key is `expected`; None on any problem."""
    from normkata.content.bank import Bank

    try:
        data = _path(folder).read_bytes()
        stored, payload = data[: len(expected)], data[len(expected) :]
        if stored != expected:
            return None
        bank = _Unpickler(io.BytesIO(payload)).load()
    except Exception:  # noqa: BLE001  a cache problem of any kind means: parse the files
        return None
    return bank if isinstance(bank, Bank) else None


def write(folder: Path, stored_key: bytes, bank: Bank) -> None:
    """Save `bank` under `stored_key`, atomically; a folder that cannot be written is no error."""
    import tempfile

    target = _path(folder)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".bank-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(stored_key + pickle.dumps(bank, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> type:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a bank")
        found: type = super().find_class(module, name)
        return found
