"""A PrairieLearn question for one kata: its folder (info.json, question.html, tests/run.sh) and
the recipe of the grader image that runs normkata.

PrairieLearn grades an externally graded question in a container of the image info.json names:
it copies the question's `tests/` to /grade/tests, the student's files to /grade/student, runs
the entry point and reads /grade/results/results.json (its "External Grading" page). The entry
point here checks the uploaded file as the Gradescope bundle does, grades a copy of it with
`normkata grade --format prairielearn` and, when no grade came, writes a result marked
`gradable: false`, so the attempt does not count against the student. Containers have no
network by default: normkata and the CPU build of torch are in the image (image/Dockerfile),
built once by the course from the bundled wheel. NORMKATA_GRADE_ROOT moves /grade (the tests
run the entry point in a temporary tree laid out the same way).
"""

from __future__ import annotations

import html
import json
import shlex
import shutil
import tempfile
import uuid
from pathlib import Path

from normkata.classroom.bundle import TORCH, TORCH_INDEX, build_wheel, student_messages, wheel_requirement
from normkata.content.katas import Kata
from normkata.grading.source import MAX_SOURCE_BYTES
from normkata.i18n.worded import Worded

#: PrairieLearn caps a grading job at 600 s; a kata's suite takes seconds, its first import of torch a few more.
JOB_TIMEOUT_S = 120
#: A stable namespace for the question's uuid: the same kata is the same question on every build.
_NAMESPACE = uuid.UUID("6f1d7c1e-3b0a-4d52-9a43-2f6c0e4e1a77")

_RUN = """\
#!/usr/bin/env bash
# PrairieLearn runs this for every submission; what the student sees is results/results.json.
set -uo pipefail
ROOT="${{NORMKATA_GRADE_ROOT:-/grade}}"
KATA={kata}
FILE={file}
GRADE_LANG={lang}
SEED={seed}  # "" draws fresh inputs for each submission (recorded in the results)
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
export NORMKATA_HOME="$(mktemp -d)"
not_gradable() {{  # no grade: PrairieLearn neither awards nor takes points, nor counts the attempt
  printf '{{"gradable": false, "score": 0.0, "message": "%s", "format_errors": ["%s"], "tests": []}}\\n' "$1" "$1" \\
    > "$RESULTS"
}}
SUBMITTED="$ROOT/student/$FILE"
if [ -L "$SUBMITTED" ]; then
  not_gradable {say_link}
  exit 0
fi
if [ ! -e "$SUBMITTED" ]; then
  not_gradable {say_missing}
  exit 0
fi
if [ ! -f "$SUBMITTED" ]; then
  not_gradable {say_not_file}
  exit 0
fi
if [ "$(stat -c %s "$SUBMITTED")" -gt {max_bytes} ]; then
  not_gradable {say_too_big}
  exit 0
fi
WORK="$(mktemp -d)"
cp -P "$SUBMITTED" "$WORK/$FILE"
cd "$WORK" || exit 0  # the grader starts in a folder of its own, never the student's
normkata --lang "$GRADE_LANG" grade "$KATA" --file "$WORK/$FILE" --format prairielearn --output "$RESULTS" \\
  ${{SEED:+--seed "$SEED"}}
status=$?
if [ "$status" -gt 1 ] || [ ! -s "$RESULTS" ]; then
  not_gradable {say_stopped}
fi
exit 0
"""

_DOCKERFILE = """\
# The grader image named in info.json: build it once and push it where PrairieLearn pulls from,
#   docker build -t {image} image/ && docker push {image}
FROM python:3.12-slim
RUN apt-get update && apt-get install -y --no-install-recommends libseccomp2 && rm -rf /var/lib/apt/lists/*
# torch first and from the CPU index, so the wheel's torch requirement is already met.
RUN pip install --no-cache-dir {torch} --index-url {index}
COPY {wheel_file} /tmp/
RUN pip install --no-cache-dir "/tmp/"{wheel} && rm /tmp/{wheel_file}
"""

_QUESTION = """\
<pl-question-panel>
  <markdown>
{instructions}
  </markdown>
  <p>Upload your <code>{file}</code>.</p>
</pl-question-panel>

<pl-file-upload file-names="{file}"></pl-file-upload>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""


def build_question(
    kata: Kata, out: Path, *, image: str, wheel: Path | None, lang: str, seed: int | None = None
) -> Path:
    """Write the question folder for `kata` at `out` (info.json, question.html, tests/run.sh) and
    image/ (Dockerfile and the normkata wheel, given or built from this checkout)."""
    if out.exists() and any(out.iterdir()):
        raise Worded("classroom.refuse.question_exists", out=out)
    with tempfile.TemporaryDirectory(prefix="normkata-question-") as scratch:
        wheel = wheel or build_wheel(Path(scratch))
        if not (wheel.is_file() and wheel.name.startswith("normkata-") and wheel.suffix == ".whl"):
            raise Worded("classroom.refuse.wheel", wheel=wheel)
        (out / "tests").mkdir(parents=True, exist_ok=True)
        (out / "image").mkdir(exist_ok=True)
        shutil.copyfile(wheel, out / "image" / wheel.name)
    info = {
        "uuid": str(uuid.uuid5(_NAMESPACE, f"normkata:{kata.id}")),
        "title": f"normkata: {kata.title.in_(lang)}",
        "topic": "normkata",
        "tags": ["normkata", kata.id],
        "type": "v3",
        "singleVariant": True,
        "gradingMethod": "External",
        "externalGradingOptions": {
            "enabled": True,
            "image": image,
            "entrypoint": "/grade/tests/run.sh",
            "timeout": JOB_TIMEOUT_S,
        },
    }
    (out / "info.json").write_text(json.dumps(info, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    instructions = kata.folder / f"instructions.{lang}.md"
    shown = instructions.read_text(encoding="utf-8") if instructions.is_file() else kata.title.in_(lang)
    question = _QUESTION.format(instructions=html.escape(shown, quote=False), file=html.escape(kata.file))
    (out / "question.html").write_text(question, encoding="utf-8")
    run = _RUN.format(
        kata=shlex.quote(kata.id),
        file=shlex.quote(kata.file),
        lang=shlex.quote(lang),
        seed="" if seed is None else str(int(seed)),
        max_bytes=MAX_SOURCE_BYTES,
        **student_messages(kata.file, lang),
    )
    (out / "tests" / "run.sh").write_text(run, encoding="utf-8")
    (out / "tests" / "run.sh").chmod(0o755)
    dockerfile = _DOCKERFILE.format(
        image=image,
        torch=TORCH,
        index=TORCH_INDEX,
        wheel_file=shlex.quote(wheel.name),
        wheel=shlex.quote(wheel_requirement(kata, wheel)),
    )
    (out / "image" / "Dockerfile").write_text(dockerfile, encoding="utf-8")
    return out
