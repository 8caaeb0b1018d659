"""The trusted grading process: start the worker, run the hidden suite, write the results.

Run as `python -m normkata.grading.runner KATA FILE OUT.json [--device D] [--timeout S]`.
`normkata grade` starts it and renders what it writes; exit code 2 means bad usage.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from normkata.grading.proxy import Submission
from normkata.katas import Kata, get_kata
from normkata.paths import katas_dir, solutions_dir

_INI = "[pytest]\nmarkers =\n    category(name): the report category of a case\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="normkata.grading.runner")
    parser.add_argument("kata")
    parser.add_argument("file", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    kata = get_kata(args.kata)
    file = args.file.resolve()
    # Start the worker first: it imports torch while we import torch and pytest.
    submission = Submission(
        file, list(kata.classes), list(kata.forbidden), [katas_dir(), solutions_dir()], args.timeout
    )
    try:
        import torch

        if args.device == "cuda" and not torch.cuda.is_available():
            print("--device cuda: CUDA is not available on this machine", file=sys.stderr)
            return 2
        results = _grade(kata, file, submission, args.device, torch.cuda.is_available())
    finally:
        submission.close()
    results.update(
        kata=kata.id,
        file=str(file),
        torch=submission.torch_version,
        duration_s=round(time.perf_counter() - started, 3),
    )
    args.out.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


def _grade(kata: Kata, file: Path, submission: Submission, device: str, cuda: bool) -> dict[str, Any]:
    loaded = submission.load()
    if not loaded.ok:
        return {"cases": [_import_case(kata, file, loaded.error, loaded.message, loaded.line)], "diagnosis": []}
    if loaded.missing:
        names = ", ".join(loaded.missing)
        message = f"MISSING CLASS {names} in {file.name}: did you rename it or forget to define it?"
        return {"cases": [_case("import", "module state", "error", message)], "diagnosis": []}

    import pytest

    from normkata.grading.plugin import GradingPlugin

    plugin = GradingPlugin(submission, _load_reference(kata), device, cuda)
    with tempfile.TemporaryDirectory() as scratch:
        ini = Path(scratch) / "pytest.ini"
        ini.write_text(_INI, encoding="utf-8")
        pytest_args = [
            str(kata.suite),
            "-c", str(ini), "--rootdir", scratch, "--noconftest", "--import-mode=importlib",
            "-p", "no:cacheprovider", "-q", "-o", "addopts=",
            # Suites raise CaseFailure with their own messages: no assert rewriting needed, and
            # these plugins only cost start-up time here.
            "--assert=plain", "-p", "no:doctest", "-p", "no:junitxml", "-p", "no:pastebin",
            "-p", "no:unraisableexception", "-p", "no:threadexception", "-p", "no:faulthandler",
            "-p", "no:logging", "-p", "no:legacypath",
        ]  # fmt: skip
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            pytest.main(pytest_args, plugins=[plugin])
    cases = [r.to_json() for r in plugin.results]
    cases.append(_forbidden_case(kata, file, sorted(submission.forbidden_seen)))
    cases.append(_global_case(loaded.global_changes))
    diagnosis = [
        {
            "id": m.id,
            "title_en": m.title_en,
            "title_zh": m.title_zh,
            "hint_en": m.hint_en,
            "hint_zh": m.hint_zh,
            "cases": n,
        }
        for m, n in plugin.diagnoses.values()
    ]
    return {"cases": cases, "diagnosis": diagnosis, "cuda": cuda}


def _case(name: str, category: str, status: str, message: str) -> dict[str, Any]:
    return {"name": name, "category": category, "status": status, "message": message, "diagnosis": None}


def _import_case(kata: Kata, file: Path, error: str, message: str, line: int) -> dict[str, Any]:
    where = f" line {line}" if line else ""
    if error == "SyntaxError":
        text = f"SYNTAX ERROR in {file.name}{where}: {message}"
    elif error in ("SystemExit", "KeyboardInterrupt"):
        text = f"IMPORT STOPPED in {file.name}{where}: the file exited while being imported ({message})"
    elif error == "Crash":
        text = f"IMPORT FAILED for {file.name}: {message}"
    else:
        text = f"IMPORT ERROR in {file.name}{where}: {error}: {message}"
    return _case("import", "module state", "error", text)


def _forbidden_case(kata: Kata, file: Path, called: list[str]) -> dict[str, Any]:
    found = sorted(set(called) | set(static_forbidden_uses(file.read_text(encoding="utf-8"), kata.forbidden)))
    if not found:
        return _case("uses no forbidden API", "module state", "passed", "")
    listed = ", ".join(found)
    return _case(
        "uses no forbidden API",
        "module state",
        "failed",
        f"{file.name} uses {listed}: this kata asks you to write the computation yourself.",
    )


def _global_case(changes: list[str]) -> dict[str, Any]:
    if not changes:
        return _case("leaves torch's global defaults alone", "module state", "passed", "")
    return _case(
        "leaves torch's global defaults alone",
        "module state",
        "failed",
        "importing your file changed torch's global state (" + "; ".join(changes) + "); a layer must not.",
    )


def static_forbidden_uses(source: str, forbidden: tuple[str, ...]) -> list[str]:
    """Forbidden names the source refers to: as an attribute (F.rms_norm) or an import."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    by_name = {dotted.rsplit(".", 1)[1]: dotted for dotted in forbidden}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in by_name:
            found.add(by_name[node.attr])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torch"):
            found.update(by_name[a.name] for a in node.names if a.name in by_name)
    return sorted(found)


def _load_reference(kata: Kata) -> Any:
    spec = importlib.util.spec_from_file_location(f"normkata_reference_{kata.id}", kata.solution)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # suites import it by this name
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # the results are written; skip torch's slow interpreter teardown
