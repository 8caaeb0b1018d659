"""A Gradescope autograder for one kata: setup.sh, run_autograder and the normkata wheel, zipped.

Gradescope runs `setup.sh` once when it builds the autograder's image and `run_autograder` in
a fresh container for every submission, so each learner's file is graded on a machine of its
own: the platform is the scale-out. The root is `/autograder`, or NORMKATA_AUTOGRADER_ROOT
(the tests point it at a temporary tree laid out the same way).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import tempfile
import zipfile
from pathlib import Path

from normkata.content.katas import EXTRAS, Kata
from normkata.grading.launch import python_module
from normkata.grading.source import MAX_SOURCE_BYTES
from normkata.i18n import t
from normkata.i18n.worded import Worded
from normkata.paths import content_root

#: torch as the bundle installs it: the CPU wheel (Gradescope's containers have no GPU, and the
#: default CUDA build is several GB), the version this project is tested with.
TORCH = "torch==2.13.0"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"

_SETUP = """\
#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder image (choose the Ubuntu 24.04 base).
set -euo pipefail
ROOT="${{NORMKATA_AUTOGRADER_ROOT:-/autograder}}"
apt-get update
# libseccomp2: the grading sandbox's system-call filter.
apt-get install -y --no-install-recommends python3 python3-venv python3-pip libseccomp2
python3 -m venv "$ROOT/normkata-venv"
# torch first and from the CPU index, so the wheel's torch requirement is already met.
"$ROOT/normkata-venv/bin/pip" install {torch} --index-url {index}
# The wheel with the extras the kata requires (triton: the kernel katas' interpreter, pinned).
"$ROOT/normkata-venv/bin/pip" install "$ROOT/source/"{wheel}
"""

_RUN = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission; what students see is results/results.json.
set -uo pipefail
ROOT="${{NORMKATA_AUTOGRADER_ROOT:-/autograder}}"
KATA={kata}
FILE={file}
GRADE_LANG={lang}
# Gradescope's visibility of the tests, and the inputs' seed: every submission on the same
# inputs when one is given ("" draws fresh inputs for each, recorded in the results).
VISIBILITY={visibility}
SEED={seed}
RESULTS="$ROOT/results/results.json"
export PATH="$ROOT/normkata-venv/bin:$PATH"
export NORMKATA_HOME="$ROOT/normkata-home"
mkdir -p "$ROOT/results"
fallback() {{  # results.json when no grade was written: the reason, no points
  printf '{{"score": 0.0, "output": "%s", "tests": []{fallback_visibility}}}\\n' "$1" > "$RESULTS"
}}
SUBMITTED="$ROOT/submission/$FILE"
# A regular file only, never what a link points to (the reference, another file), and bounded.
if [ -L "$SUBMITTED" ]; then
  fallback {say_link}
  exit 0
fi
if [ ! -e "$SUBMITTED" ]; then
  fallback {say_missing}
  exit 0
fi
if [ ! -f "$SUBMITTED" ]; then
  fallback {say_not_file}
  exit 0
fi
if [ "$(stat -c %s "$SUBMITTED")" -gt {max_bytes} ]; then
  fallback {say_too_big}
  exit 0
fi
WORK="$(mktemp -d)"
cp -P "$SUBMITTED" "$WORK/$FILE"
cd "$WORK" || exit 0  # the grader starts in a folder of its own, never the submission's
normkata --lang "$GRADE_LANG" grade "$KATA" --file "$WORK/$FILE" --format gradescope --output "$RESULTS" \\
  --visibility "$VISIBILITY" ${{SEED:+--seed "$SEED"}}
status=$?
if [ "$status" -gt 1 ] || [ ! -s "$RESULTS" ]; then
  fallback {say_stopped}
fi
exit 0
"""

#: What a student reads when no grade came, by the script's placeholder: catalog keys, worded in
#: the bundle's language when it is built.
_SAYINGS = {
    "say_link": "classroom.student.link",
    "say_missing": "classroom.student.missing",
    "say_not_file": "classroom.student.not_file",
    "say_too_big": "classroom.student.too_big",
    "say_stopped": "classroom.student.stopped",
}


def student_messages(file: str, lang: str) -> dict[str, str]:
    """The scripts' messages to a student in `lang`, each a double-quoted shell word: nothing in it
    expands but `$status` (the grader's exit code)."""
    words = {}
    for placeholder, key in _SAYINGS.items():
        text = t(key, lang, file=file, kb=MAX_SOURCE_BYTES // 1024, status="\0")
        quoted = re.sub(r'([\\"`$])', r"\\\1", text).replace("\0", "$status")
        words[placeholder] = f'"{quoted}"'
    return words


_EXECUTABLE = 0o100755 << 16
_FILE = 0o100644 << 16


def build_bundle(
    kata: Kata, out: Path, *, wheel: Path | None, lang: str, seed: int | None = None, visibility: str = "visible"
) -> Path:
    """Write the autograder zip for `kata` to `out`, with `wheel` or one built from this checkout.
    `seed`: every submission graded on the inputs of this seed; `visibility`: Gradescope's."""
    from normkata.grading.formats import VISIBILITIES

    if visibility not in VISIBILITIES:
        raise Worded("classroom.refuse.visibility", given=visibility, known=", ".join(VISIBILITIES))
    with tempfile.TemporaryDirectory(prefix="normkata-bundle-") as scratch:
        wheel = wheel or build_wheel(Path(scratch))
        if not (wheel.is_file() and wheel.name.startswith("normkata-") and wheel.suffix == ".whl"):
            raise Worded("classroom.refuse.wheel", wheel=wheel)
        setup = _SETUP.format(torch=TORCH, index=TORCH_INDEX, wheel=shlex.quote(wheel_requirement(kata, wheel)))
        shown = "" if visibility == "visible" else f', "visibility": "{visibility}"'
        run = _RUN.format(
            kata=shlex.quote(kata.id),
            file=shlex.quote(kata.file),
            lang=shlex.quote(lang),
            visibility=shlex.quote(visibility),
            seed="" if seed is None else str(int(seed)),
            fallback_visibility=shown,
            max_bytes=MAX_SOURCE_BYTES,
            **student_messages(kata.file, lang),
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:  # files at the root, as Gradescope asks
            _add(archive, "setup.sh", setup.encode(), _EXECUTABLE)
            _add(archive, "run_autograder", run.encode(), _EXECUTABLE)
            _add(archive, wheel.name, wheel.read_bytes(), _FILE)
    return out


def wheel_requirement(kata: Kata, wheel: Path) -> str:
    """The bundled wheel as pip installs it: `normkata-….whl[triton]` for a kata that requires the
    triton extra, so that setup.sh puts Triton (and numpy, which its interpreter needs) in the
    image; without it every kernel-kata submission would be graded as "needs the triton extra"."""
    extras = sorted(EXTRAS[name][1].partition("[")[2].rstrip("]") for name in kata.requires)
    return f"{wheel.name}[{','.join(extras)}]" if extras else wheel.name


def _add(archive: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.external_attr = mode
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def build_wheel(folder: Path) -> Path:
    """The normkata wheel built from this source checkout, offline (pip with the local hatchling)."""
    root = content_root()
    if not (root / "pyproject.toml").is_file():
        raise Worded("classroom.refuse.installed")
    built = subprocess.run(
        [*python_module("pip"), "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(folder), str(root)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=folder,  # nothing of the caller's folder
    )
    wheels = sorted(folder.glob("normkata-*.whl"))
    if built.returncode != 0 or not wheels:
        why = (built.stderr.strip().splitlines() or ["no wheel written"])[-1]
        raise Worded("classroom.refuse.wheel_build", why=why)
    return wheels[-1]
