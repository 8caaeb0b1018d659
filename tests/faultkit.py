"""Run normkata as a real subprocess, in a home of its own, and judge how it failed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: A feedback line: the answer before it is saved (the store writes first, then the quiz says so).
FEEDBACK = re.compile(r"^[✓✗] ", re.MULTILINE)


def write_bank(folder: Path, questions: int = 12) -> Path:
    """Single-choice questions and one card: small, fast to load, independent of quizzes/."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["format_version: 1", "topic: faults", "title: {en: Faults, zh: 故障}", "questions:"]
    for i in range(questions):
        lines += [
            f"  - id: fault-{i:02d}",
            "    type: single",
            "    difficulty: easy",
            f"    prompt: {{en: Question {i}?, zh: 问题 {i}？}}",
            "    choices: [{en: one, zh: 一}, {en: two, zh: 二}, {en: three, zh: 三}]",
            "    answer: A",
            "    explanation: {en: Because., zh: 因为。}",
            "    source: beyond",
        ]
    lines += [
        "cards:",
        "  - id: fault-card",
        "    difficulty: easy",
        "    prompt: {en: Explain faults., zh: 解释故障。}",
        "    key_points: {en: [they happen], zh: [会发生]}",
        "    answer: {en: They happen., zh: 会发生。}",
        "    source: beyond",
    ]
    (folder / "faults.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def environment(home: Path, bank: Path | None = None, **extra: str | None) -> dict[str, str]:
    """The parent's environment without any NORMKATA_ setting, then `home`, `bank` and `extra`.

    An `extra` value of None removes that variable.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("NORMKATA_")}
    env.update(NORMKATA_HOME=str(home), NORMKATA_LANG="en", NORMKATA_WORKSPACE=str(home.parent / "workspace"))
    env.pop("COVERAGE_PROCESS_START", None)
    if bank is not None:
        env["NORMKATA_QUIZZES"] = str(bank)
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "normkata", *args]


def run(
    args: list[str], env: dict[str, str], stdin: str | None = "", prefix: list[str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """normkata ARGS, after `prefix` (a wrapper command), with `stdin` as input (None: the test's own)."""
    return subprocess.run(
        [*(prefix or []), *command(*args)],
        input=None if stdin is None else stdin.encode(),
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=60,
    )


def assert_clean(result: subprocess.CompletedProcess[bytes], what: str) -> None:
    """Worked (exit 0), or stopped with one line of explanation and exit 2; never a traceback."""
    out = result.stdout.decode("utf-8", "replace")
    err = result.stderr.decode("utf-8", "replace")
    context = f"{what}: exit {result.returncode}\nstdout:\n{out[-1500:]}\nstderr:\n{err[-3000:]}"
    assert "Traceback" not in err and "Traceback" not in out, context
    assert result.returncode in (0, 2), context
    if result.returncode == 2:
        problems = [line for line in err.splitlines() if line.strip() and not line.startswith("Warning:")]
        assert len(problems) == 1, context


def answers_in(database: Path) -> int:
    """The answers the next command will see: opened exactly as normkata opens it."""
    from normkata.record.store import Store

    store = Store(database)
    try:
        return store.counts()["answers"]
    finally:
        store.close()


def set_aside(home: Path) -> list[Path]:
    """Anything normkata moved aside as damaged."""
    return sorted(home.glob("*.damaged-*"))
