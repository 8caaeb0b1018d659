"""The teacher's grading key: what signs grade-all's out folders (reruns, shards) with HMAC-SHA256.

It lives in the state folder (`NORMKATA_HOME/grade-all.key`), which the grading sandbox never
lets a submission read, and never in a class folder or in the environment (a worker inherits
the environment). Shards graded on other machines are merged only when every machine held the
same key: copy it there (docs/teachers.md shows how for Slurm, Kubernetes and GitHub Actions).
"""

from __future__ import annotations

import binascii
import os
import secrets

from normkata.errors import InputError
from normkata.files import read_file, write_file
from normkata.paths import state_dir

#: The key's file in the state folder: 32 random bytes (or their 64 hex digits), owner-only.
KEY_FILE = "grade-all.key"
KEY_BYTES = 32


def grading_key() -> bytes:
    """The key, created on first use: written whole under a private name, then linked into place,
    so that two grade-alls starting at once agree on one key and none reads a half-written one."""
    home = state_dir()
    home.mkdir(parents=True, exist_ok=True)
    path = home / KEY_FILE
    if not os.path.lexists(path):
        staged = home / f".{KEY_FILE}.{secrets.token_hex(8)}"
        write_file(staged, secrets.token_bytes(KEY_BYTES), mode=0o600)
        try:
            os.link(staged, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(staged)
    try:
        data = read_file(path, 2 * KEY_BYTES + 2)
    except OSError as exc:
        raise InputError(f"{path}: the grade-all key cannot be read ({exc})") from None
    key = _decoded(data)
    if key is None:
        raise InputError(f"{path} is not a grade-all key (32 bytes, or 64 hex digits): remove it and run again")
    return key


def _decoded(data: bytes) -> bytes | None:
    """32 raw bytes as written here, or 64 hex digits (and a newline) as `openssl rand -hex 32` writes."""
    if len(data) == KEY_BYTES:
        return data
    text = data.strip()
    if len(text) == 2 * KEY_BYTES:
        try:
            return binascii.unhexlify(text)
        except binascii.Error:
            return None
    return None
