"""Which part of a class one grade-all grades: shard K of N, by a stable hash of each name.

Every engine splits a class alike because the split depends on nothing but the submission's
name (its gradebook key) and N: sha256 of the name, as a number, modulo N. `--shard auto`
reads K and N from the engine's own variables:

- Slurm job array: (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP of
  SLURM_ARRAY_TASK_COUNT;
- Kubernetes Indexed Job: JOB_COMPLETION_INDEX of NORMKATA_SHARD_COUNT (set it to `completions`);
- a GitHub Actions matrix, or any other engine: NORMKATA_SHARD_INDEX of NORMKATA_SHARD_COUNT (set
  them from `strategy.job-index` and `strategy.job-total`).
Indices are 0-based, as the engines count; `--shard K/N` is 1-based, as people count.

Every shard of one class run carries the run's id (`class_run`), which the merge holds equal: the
teacher's `--run`, else the engine's own id of the run (Slurm's array job, GitHub's run and
attempt, NORMKATA_RUN_ID where the template sets it, as the Kubernetes one does from the Job's
uid), else, for a whole class graded at once, a fresh one. A class split by hand (`--shard 2/3`)
must be given one: nothing else can tell its shards from an earlier run's.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from normkata.errors import InputError

#: More shards than this is a typo, not a class.
MAX_SHARDS = 10_000
_SPEC = re.compile(r"(\d{1,5})/(\d{1,5})")
#: A class run's id: what a teacher types or an engine sets (a job id, a date, a uid).
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,99}")


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based, as `--shard 2/3` says) of `count`."""

    index: int = 1
    count: int = 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, name: str) -> bool:
        return shard_of(name, self.count) == self.index


#: No split: the whole class.
WHOLE_CLASS = Shard()


def shard_of(name: str, count: int) -> int:
    """The 1-based shard that grades submission `name` when the class is split in `count`."""
    digest = hashlib.sha256(name.encode("utf-8", "backslashreplace")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def parse_shard(text: str, environ: Mapping[str, str]) -> Shard:
    """`K/N` (1 ≤ K ≤ N), or `auto`: from the engine's variables (see the module's table)."""
    if text == "auto":
        return _from_engine(environ)
    found = _SPEC.fullmatch(text.strip())
    if not found:
        raise InputError(f"--shard {text}: expected K/N (shard K of N, e.g. 2/3) or auto")
    return _checked(int(found.group(1)), int(found.group(2)), f"--shard {text}")


def _checked(index: int, count: int, source: str) -> Shard:
    if not 1 <= count <= MAX_SHARDS:
        raise InputError(f"{source}: the number of shards must be between 1 and {MAX_SHARDS}")
    if not 1 <= index <= count:
        raise InputError(f"{source}: shard {index} of {count} does not exist (shards are 1 to {count})")
    return Shard(index, count)


def _number(environ: Mapping[str, str], name: str) -> int:
    value = environ.get(name, "").strip()
    if not re.fullmatch(r"\d{1,9}", value):
        raise InputError(f"--shard auto: {name}={value!r} is not a whole number")
    return int(value)


def _from_engine(environ: Mapping[str, str]) -> Shard:
    if "SLURM_ARRAY_TASK_ID" in environ:
        task = _number(environ, "SLURM_ARRAY_TASK_ID")
        count = _number(environ, "SLURM_ARRAY_TASK_COUNT") if "SLURM_ARRAY_TASK_COUNT" in environ else 0
        first = _number(environ, "SLURM_ARRAY_TASK_MIN") if "SLURM_ARRAY_TASK_MIN" in environ else 0
        step = _number(environ, "SLURM_ARRAY_TASK_STEP") if "SLURM_ARRAY_TASK_STEP" in environ else 1
        source = f"--shard auto (Slurm array task {task}, {count} tasks from {first})"
        if not count:
            raise InputError(
                "--shard auto: SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT: run it "
                "as a job array (sbatch --array=0-2)"
            )
        if "SLURM_ARRAY_TASK_MAX" in environ and step:
            last = _number(environ, "SLURM_ARRAY_TASK_MAX")
            if (last - first) // step + 1 != count:
                raise InputError(
                    f"{source}: the array is not evenly spaced ({first} to {last}, step {step}, "
                    f"{count} tasks): use a range such as --array=0-{count - 1}"
                )
        if step < 1 or task < first or (task - first) % step:
            raise InputError(f"{source}: task {task} is not in the array")
        return _checked((task - first) // step + 1, count, source)
    if "JOB_COMPLETION_INDEX" in environ:
        index = _number(environ, "JOB_COMPLETION_INDEX")
        if "NORMKATA_SHARD_COUNT" not in environ:
            raise InputError(
                "--shard auto: JOB_COMPLETION_INDEX is set but not NORMKATA_SHARD_COUNT: set it to "
                "the Indexed Job's completions"
            )
        count = _number(environ, "NORMKATA_SHARD_COUNT")
        return _checked(index + 1, count, f"--shard auto (Kubernetes completion index {index} of {count})")
    if "NORMKATA_SHARD_INDEX" in environ:
        index = _number(environ, "NORMKATA_SHARD_INDEX")
        if "NORMKATA_SHARD_COUNT" not in environ:
            raise InputError("--shard auto: NORMKATA_SHARD_INDEX is set but not NORMKATA_SHARD_COUNT")
        count = _number(environ, "NORMKATA_SHARD_COUNT")
        return _checked(index + 1, count, f"--shard auto (NORMKATA_SHARD_INDEX {index} of {count})")
    raise InputError(
        "--shard auto: none of SLURM_ARRAY_TASK_ID (Slurm), JOB_COMPLETION_INDEX (Kubernetes) or "
        "NORMKATA_SHARD_INDEX (GitHub Actions and others) is set: pass --shard K/N"
    )


def class_run(given: str | None, shard: Shard, environ: Mapping[str, str]) -> str:
    """The id every shard of this class run signs (see the module's docstring); InputError for a
    malformed one, or for a class split by hand without one."""
    if given is not None:
        if not RUN_ID.fullmatch(given):
            raise InputError(
                f"--run {given}: expected an id of letters, digits, '.', '_', ':' or '-' (at most 100), e.g. 2026-12-07"
            )
        return given
    engine = _engine_run(environ)
    if engine is not None:
        return engine
    if shard.count == 1:
        return secrets.token_hex(8)
    raise InputError(
        f"--shard {shard} needs --run ID: the one id every shard of this class run is given (e.g. the "
        "date; or set NORMKATA_RUN_ID), so that the merge refuses a shard of another run"
    )


def _engine_run(environ: Mapping[str, str]) -> str | None:
    """The engine's id of this run, when one is set and well formed."""
    given = environ.get("NORMKATA_RUN_ID")
    if given is not None and not RUN_ID.fullmatch(given):
        raise InputError(f"NORMKATA_RUN_ID={given[:100]!r}: expected an id of letters, digits, '.', '_', ':' or '-'")
    candidates = [given or ""]
    if environ.get("SLURM_ARRAY_JOB_ID"):
        candidates.append(f"slurm-{environ['SLURM_ARRAY_JOB_ID']}")
    if environ.get("GITHUB_RUN_ID"):
        candidates.append(f"github-{environ['GITHUB_RUN_ID']}.{environ.get('GITHUB_RUN_ATTEMPT', '1')}")
    return next((c for c in candidates if RUN_ID.fullmatch(c)), None)
