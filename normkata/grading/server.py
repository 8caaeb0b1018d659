"""The grading service's trusted process: one runner that grades file after file.

Run as `python -m normkata.grading.server` by `normkata.grading.service.GradingService`. It
reads one `GradeRequest` per line on standard input and writes one JSON line per request on
standard output: `{"result": GradeResult}` or `{"error": message, "code": 2|3}`. It keeps
torch, pytest and the grading code imported, and a zygote (normkata.grading.launch) from which
each submission gets a fresh, confined worker in tens of milliseconds. Nothing of one
submission reaches the next: each has its own worker, scratch folder and pytest session, and
the same integrity checks as a one-off grade.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys

from normkata.errors import InputError
from normkata.grading.launch import ZygoteLauncher
from normkata.grading.runner import EXIT_USAGE, GradeRequest, RunnerError, grade, harden
from normkata.threads import configure_threads


def main() -> int:
    harden()
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    # Our own prints (pytest's, torch's warnings) must never mix with the replies.
    sys.stdout = sys.stderr
    configure_threads("grading")
    launcher = ZygoteLauncher()
    _warm()
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        out.write(json.dumps(_answer(line, launcher), ensure_ascii=False) + "\n")
        out.flush()
    return 0


def _answer(line: str, launcher: ZygoteLauncher) -> dict[str, object]:
    try:
        fields = json.loads(line)
        names = {f.name for f in dataclasses.fields(GradeRequest)}
        request = GradeRequest(**{k: v for k, v in fields.items() if k in names})
    except (ValueError, TypeError) as error:
        return {"error": f"unreadable request: {error}", "code": EXIT_USAGE}
    try:
        return {"result": grade(request, launcher).to_json()}
    except RunnerError as error:
        return {"error": str(error), "code": error.code}
    except InputError as error:
        return {"error": str(error), "code": EXIT_USAGE}


def _warm() -> None:
    """Import what a grade needs now, so the first request is as fast as the next."""
    import pytest  # noqa: F401
    import torch  # noqa: F401
    import torch.fx.experimental.symbolic_shapes  # noqa: F401  # what backward(gradient) loads lazily

    from normkata.grading import checks, plugin  # noqa: F401


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # skip torch's slow interpreter teardown
