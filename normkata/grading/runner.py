"""The trusted grading process: start the worker, run the hidden suite, report the verdict.

Run as `normkata.grading.runner.serve()` (launch.python_call) by `normkata.grading.client.Grader`. It reads one
`RunnerRequest` per line on standard input and answers each with one `RunnerReply` line on
standard output (JSON, through `normkata.grading.wire`): no file the worker could find or
rewrite. A one-off `normkata grade` is a conversation of one request, each worker spawned cold;
`watch`, `grade-all`, `doctor` and the tests hold a long one that starts with `warm`: torch,
pytest and the grading code stay imported, and a zygote (normkata.grading.launch) forks each
submission a fresh, confined worker in tens of milliseconds. Nothing of one submission reaches
the next: each has its own worker, scratch folder and pytest session, and the same integrity
checks. Nothing the worker does reaches this process except replies that are checked field by
field.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import io
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import IO, TYPE_CHECKING, NoReturn

from normkata.content.katas import Kata, get_kata
from normkata.content.suite_names import suite_names
from normkata.errors import CUDA_MISSING, InputError
from normkata.files import Refused
from normkata.grading.contract import (
    CaseResult,
    Category,
    Cause,
    Diagnosis,
    GradeRequest,
    GradeResult,
    RunnerReply,
    RunnerRequest,
    Status,
)
from normkata.grading.errors import CODE_INPUT, CODE_NO_VERDICT, GraderError
from normkata.grading.launch import Launcher, SpawnLauncher
from normkata.grading.messages import LoadReply, LoadRequest
from normkata.grading.source import read_source
from normkata.grading.text import escape_name, sanitize
from normkata.grading.wire import WireError, from_wire, to_wire
from normkata.paths import katas_dir, quizzes_dir, solutions_dir, state_dir

if TYPE_CHECKING:
    from normkata.grading.proxy import Submission, Worker

#: What a runner reports when the hidden suite itself is at fault (no verdict).
_SUITE_BROKEN = "the hidden suite breaks the grading contract: "


def main() -> int:
    harden()
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    # Our own prints (pytest's, torch's warnings) must never mix with the replies.
    sys.stdout = sys.stderr
    conversation = Conversation()
    try:
        for line in sys.stdin:
            if line.strip():
                _write(replies, conversation.answer(line))
                conversation.prepare()  # after the reply: the client does not wait for it
    finally:
        conversation.close()
    return 0


def _write(stream: IO[str], reply: RunnerReply) -> None:
    stream.write(json.dumps(to_wire(reply), ensure_ascii=False) + "\n")
    stream.flush()


class Conversation:
    """The runner's side of one client: workers spawned cold until a `warm` asks for a zygote."""

    def __init__(self) -> None:
        self.launcher: Launcher = SpawnLauncher()
        #: A worker forked ahead of the next grade, warmed up and waiting to be confined (warm only).
        self.spare: Worker | None = None

    def prepare(self) -> None:
        """Start the next grade's worker now, while the learner is typing (a warm conversation)."""
        if isinstance(self.launcher, SpawnLauncher) or (self.spare is not None and self.spare.alive()):
            return
        if self.spare is not None:  # died while it waited: reap it and close its pipes
            self.spare.kill()
        from normkata.grading.proxy import Worker

        self.spare = Worker(self.launcher)

    def take_spare(self) -> Worker | None:
        spare, self.spare = self.spare, None
        return spare

    def close(self) -> None:
        if self.spare is not None:
            self.spare.kill()
            self.spare = None

    def answer(self, line: str) -> RunnerReply:
        try:
            asked = from_wire(RunnerRequest, json.loads(line))
        except (ValueError, TypeError) as error:  # WireError is a ValueError
            return RunnerReply(error=f"unreadable request: {error}", code=CODE_INPUT)
        try:
            if asked.op == "warm":
                self.warm()
                return RunnerReply(ready=True)
            if asked.op == "processes":
                return RunnerReply(pids=self.processes())
            if asked.request is None:
                raise WireError(f"{asked.op}: no request")
            if asked.op == "grade":
                spare = self.take_spare()
                try:
                    return RunnerReply(result=grade(asked.request, self.launcher, spare))
                finally:
                    if spare is not None and not spare.confined:  # refused before a worker was needed
                        spare.kill()
            if asked.op == "list":
                return RunnerReply(cases=list_cases(asked.request.kata, asked.request.lang))
            raise WireError(f"unknown op {asked.op!r}")
        except Refused as error:  # a link, a FIFO, a file of /proc, too large: in the grade's language
            return RunnerReply(error=error.in_(asked.request.lang if asked.request else "en"), code=CODE_INPUT)
        except (InputError, WireError) as error:  # an unknown or broken kata, -k matching nothing
            return RunnerReply(error=str(error), code=CODE_INPUT)
        except GraderError as error:
            return RunnerReply(error=str(error), code=CODE_NO_VERDICT)

    def warm(self) -> None:
        """Import what a grade needs now and start the zygote, so the first grade is as fast as the next."""
        from normkata.grading.launch import ZygoteLauncher
        from normkata.threads import configure_threads

        if isinstance(self.launcher, ZygoteLauncher):
            return
        configure_threads("grading")
        self.launcher = ZygoteLauncher()
        _import_grading()

    def processes(self) -> list[int]:
        """The processes of this runner's own that outlive a grade: the zygote, its resource
        tracker and the spare worker (which has run no learner code)."""
        spare = [self.spare.process.pid] if self.spare is not None and self.spare.alive() else []
        return sorted([*self.launcher.helpers, *spare])


def grade(request: GradeRequest, launcher: Launcher, spare: Worker | None = None) -> GradeResult:
    """Grade one file in a fresh confined worker: `spare`, started ahead by `launcher`, or a new one."""
    started = time.perf_counter()
    kata = get_kata(request.kata, request.lang)
    if kata.requires and (missing := kata.missing_extras()):  # watch, grade-all: say it, do not crash
        from normkata.i18n import t

        raise InputError(t("grade.needs_extra", request.lang, kata=kata.id, package=missing[0]))
    # Not resolved: a link would make its target's folder the readable one. A link, a special
    # file or an oversized one is refused (normkata.files.Refused, exit code 2) before anything runs.
    file = Path(os.path.abspath(request.file))
    source = read_source(file).decode("utf-8", "replace")
    seed = request.seed if request.seed is not None else random.SystemRandom().randrange(1, 2**31)
    budget = request.time_budget
    protected = [str(p) for p in (katas_dir(), solutions_dir(), quizzes_dir(), Path(__file__).resolve().parents[1])]
    with contextlib.suppress(Exception):  # no home to find: nothing of the store to protect
        protected.append(str(state_dir()))
    load = LoadRequest(str(file), list(kata.classes), list(kata.forbidden), [str(file.parent)])

    from normkata.grading.proxy import Submission

    # The worker imports torch (and confines itself) while we import torch and pytest.
    spent = time.perf_counter() - started  # the budget counts from the request, as duration_s does
    submission = Submission(load, [Path(p) for p in protected], request.timeout, budget - spent, launcher, spare)
    with tempfile.TemporaryDirectory(prefix="normkata-runner-") as private:
        try:
            import torch

            if request.device == "cuda" and not torch.cuda.is_available():
                raise InputError(CUDA_MISSING)
            _import_grading()  # before the snapshot, so it covers all grading code
            trusted = _TrustedCopy(kata, Path(private))
            result = _grade(kata, file, source, submission, trusted, request, seed)
        finally:
            submission.close()
            from normkata.grading.sandbox import kill_descendants

            kill_descendants(exclude=launcher.helpers)  # whatever left the worker's process group, adopted by us
        trusted.verify()  # the worker is dead: nothing can change them between this and the verdict
    result.duration_s = round(time.perf_counter() - started, 3)
    _sanitize(result)
    return result


def _import_grading() -> None:
    """Import what a grade runs: pytest, the plugin and checks, and symbolic_shapes (sympy, 0.5 s),
    which torch loads on the first backward(gradient): a warm runner at `warm`, a one-off one
    while its worker is still warming up, never mid-grade."""
    import pytest  # noqa: F401
    import torch.fx.experimental.symbolic_shapes  # noqa: F401

    from normkata.grading import checks, plugin  # noqa: F401


class _TrustedCopy:
    """The suite and the reference, copied and hashed before any learner code runs.

    The runner loads these copies, from a private folder; `verify` checks afterwards that
    neither they nor the installed originals changed (a mismatch is an error, never a pass).
    """

    def __init__(self, kata: Kata, folder: Path) -> None:
        folder.chmod(0o700)
        self.originals = [kata.suite, kata.solution, *_grading_modules()]
        self.hashes = {path: _sha256(path) for path in self.originals}
        self.suite = folder / f"suite_{kata.id}.py"
        self.solution = folder / f"reference_{kata.id}.py"
        shutil.copyfile(kata.suite, self.suite)
        shutil.copyfile(kata.solution, self.solution)
        self.copies = {self.suite: self.hashes[kata.suite], self.solution: self.hashes[kata.solution]}

    def verify(self) -> None:
        changed = [p for p, h in {**self.hashes, **self.copies}.items() if not p.exists() or _sha256(p) != h]
        if changed:
            names = ", ".join(p.name for p in changed)
            raise GraderError(f"the grader's own files changed during grading ({names}): no verdict")


def _grading_modules() -> list[Path]:
    """The grading code this process runs (what a verdict depends on), as files."""
    files = {
        getattr(module, "__file__", None)
        for name, module in list(sys.modules.items())
        if name.startswith("normkata.grading.")
    }
    return sorted(Path(f) for f in files if f)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _grade(
    kata: Kata, file: Path, source: str, submission: Submission, trusted: _TrustedCopy, request: GradeRequest, seed: int
) -> GradeResult:

    from normkata.grading import checks
    from normkata.grading.plugin import GradingPlugin

    checks.configure(seed, request.lang, str(file))
    _load_reference(kata, trusted.solution)
    loaded = submission.load()
    hello = submission.hello
    sandbox = hello.sandbox if hello else "off"
    torch_version = hello.torch if hello else ""

    def result(cases: list[CaseResult], diagnosis: list[Diagnosis]) -> GradeResult:
        return GradeResult(kata.id, str(file), cases, diagnosis, seed, sandbox, 0.0, torch_version, request.lang)

    if not loaded.ok:
        return result([_import_case(file, source, loaded)], [])
    if loaded.missing:
        message = checks.say(
            "MISSING CLASS {names} in {file}: did you rename it or forget to define it?",
            "{file} 中缺少类 {names}：是否改了名字或忘了定义？",
            names=", ".join(loaded.missing),
            file=file.name,
        )
        return result(
            [CaseResult(*_titled("import"), Category.STATE, Status.ERROR, message, cause=Cause.MISSING_CLASS)], []
        )

    import torch

    plugin = GradingPlugin(
        submission, suite_names(kata.id), request.device, torch.cuda.is_available(), request.lang, request.select
    )
    _run_pytest(trusted.suite, plugin)
    if request.select and not plugin.results:
        raise InputError(
            checks.say(
                "-k {patterns}: no case of {kata} matches (grade --list shows them)",
                "-k {patterns}：{kata} 没有匹配的用例（grade --list 可列出全部用例）",
                patterns=" ".join(request.select),
                kata=kata.id,
            )
        )
    if plugin.suite_errors:
        raise GraderError(_SUITE_BROKEN + "; ".join(plugin.suite_errors[:3]))
    cases = [
        *plugin.results,
        _forbidden_case(kata, file, source, sorted(submission.forbidden_seen)),
        _global_case(loaded.global_changes),
    ]
    lang = request.lang
    diagnosis = [Diagnosis(m.id, m.title.in_(lang), m.hint.in_(lang), n) for m, n in plugin.diagnoses.values()]
    return result(cases, diagnosis)


def _run_pytest(suite: Path, plugin: object, *extra: str) -> None:
    import pytest

    pytest_args = [
        # No configuration file is looked for: the plugin registers the markers it reads. pytest
        # lists every folder from the confcutdir down to the suite: unset, it listed / and all of
        # /tmp on every grade (80 ms here, more on a full /tmp). The suite's own folder it is.
        str(suite),
        "-c",
        os.devnull,
        "--rootdir",
        str(suite.parent),
        "--confcutdir",
        str(suite.parent),
        "--noconftest",
        "--import-mode=importlib",
        "-p",
        "no:cacheprovider",
        "-q",
        "-o",
        "addopts=",
        # Suites raise CaseFailure with their own messages: no assert rewriting and no
        # source-parsing tracebacks needed, and these plugins only cost start-up time here.
        "--tb=native",
        "--assert=plain",
        "-p",
        "no:doctest",
        "-p",
        "no:junitxml",
        "-p",
        "no:pastebin",
        "-p",
        "no:unraisableexception",
        "-p",
        "no:threadexception",
        "-p",
        "no:faulthandler",
        "-p",
        "no:logging",
        "-p",
        "no:legacypath",
        *extra,
    ]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        pytest.main(pytest_args, plugins=[plugin])


def list_cases(kata_id: str, lang: str) -> list[tuple[str, str]]:
    """`grade --list`: (category, case name) for every case of the kata's suite, not its inputs."""
    from normkata.grading import checks
    from normkata.grading.plugin import CaseLister

    kata = get_kata(kata_id)
    checks.configure(0, lang)
    _load_reference(kata, kata.solution)
    lister = CaseLister(suite_names(kata.id), lang)
    _run_pytest(kata.suite, lister, "--collect-only")
    if lister.suite_errors:
        raise GraderError(_SUITE_BROKEN + "; ".join(lister.suite_errors[:3]))
    return [(category.value, name) for category, name in lister.cases]


def _import_case(file: Path, source: str, loaded: LoadReply) -> CaseResult:
    from normkata.grading.checks import say

    assert loaded.failure is not None
    failure = loaded.failure
    where = say(" line {n}", " 第 {n} 行", n=failure.line) if failure.line else ""
    if failure.error == "SyntaxError":
        text = say(
            "SYNTAX ERROR in {file}{where}: {message}",
            "{file}{where}有语法错误：{message}",
            file=file.name,
            where=where,
            message=failure.message,
        )
    elif failure.error in ("SystemExit", "KeyboardInterrupt"):
        text = say(
            "IMPORT STOPPED in {file}{where}: the file exited while being imported ({message})",
            "{file}{where}导入中止：文件在导入时退出了（{message}）",
            file=file.name,
            where=where,
            message=failure.message,
        )
    elif failure.error == "Crash":
        text = say(
            "IMPORT FAILED for {file}: {message}", "{file} 导入失败：{message}", file=file.name, message=failure.message
        )
    else:
        text = say(
            "IMPORT ERROR in {file}{where}: {error}: {message}",
            "{file}{where}导入出错：{error}：{message}",
            file=file.name,
            where=where,
            error=failure.error,
            message=failure.message,
        )
    if failure.line and failure.error != "Crash":
        text += source_excerpt(source, failure.line, syntax=failure.error == "SyntaxError")
    cause = Cause.SYNTAX if failure.error == "SyntaxError" else Cause.IMPORT
    return CaseResult(*_titled("import"), Category.STATE, Status.ERROR, text, cause=cause)


def source_excerpt(source: str, line: int, *, syntax: bool = False) -> str:
    """The learner's line and a caret under the fault, as Python's own traceback shows them:
    "\n    12 | return x.mean(-1\n       |        ^". Parsed here, never run: for a syntax error
    `ast.parse` gives the column; otherwise the caret spans the line's code."""
    lines = source.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    code = lines[line - 1].expandtabs(4).rstrip()
    start = len(code) - len(code.lstrip())
    width = max(1, len(code) - start)
    if syntax:
        try:
            ast.parse(source)
        except SyntaxError as exc:
            if exc.lineno == line and exc.offset:
                start = min(max(0, exc.offset - 1), len(code))
                end = exc.end_offset if exc.end_lineno == line and exc.end_offset else exc.offset + 1
                width = max(1, min(end, len(code) + 1) - exc.offset)
    number = f"{line:>4} | "
    return f"\n{number}{code}\n{' ' * (len(number) - 2)}| {' ' * start}{'^' * width}"


def _titled(case_id: str) -> tuple[str, str]:
    """One of the grader's own cases (katas/shared.yaml's grader_cases): its id, and its title in
    the grade's language."""
    from normkata.content.names import shared
    from normkata.grading.checks import say_text

    return case_id, say_text(shared().grader_cases[case_id])


def _forbidden_case(kata: Kata, file: Path, source: str, called: list[str]) -> CaseResult:
    from normkata.grading.checks import say

    found = sorted(set(called) | set(static_forbidden_uses(source, kata.forbidden)))
    if not found:
        return CaseResult(*_titled("forbidden_api"), Category.INTEGRITY, Status.PASSED)
    message = say(
        "{file} uses {names}: this kata asks you to write the computation yourself.",
        "{file} 使用了 {names}：本练习要求你自己写出计算。",
        file=file.name,
        names=", ".join(found),
    )
    return CaseResult(*_titled("forbidden_api"), Category.INTEGRITY, Status.FAILED, message, cause=Cause.FORBIDDEN)


def _global_case(changes: list[str]) -> CaseResult:
    from normkata.grading.checks import say

    if not changes:
        return CaseResult(*_titled("global_defaults"), Category.INTEGRITY, Status.PASSED)
    message = say(
        "importing your file changed torch's global state ({changes}); a layer must not.",
        "导入你的文件改变了 torch 的全局状态（{changes}）；一个层不应这样做。",
        changes="; ".join(changes),
    )
    return CaseResult(*_titled("global_defaults"), Category.INTEGRITY, Status.FAILED, message, cause=Cause.GLOBAL_STATE)


def static_forbidden_uses(source: str, forbidden: tuple[str, ...]) -> list[str]:
    """Forbidden names the source spells out (F.rms_norm, from torch... import rms_norm).

    The worker also sees every call at run time, however it is reached; this catches calls
    on paths the suite never takes.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in forbidden:
            found.add(node.attr)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torch"):
            found.update(a.name for a in node.names if a.name in forbidden)
    return sorted(found)


def _load_reference(kata: Kata, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"normkata_reference_{kata.id}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # suites import it by this name
    spec.loader.exec_module(module)
    return module


def _sanitize(result: GradeResult) -> None:
    result.file = escape_name(result.file)  # a name that is not UTF-8 could not be written as JSON
    for case in result.cases:
        case.name, case.message = sanitize(case.name, 200), sanitize(case.message)
        case.call = case.call and sanitize(case.call, 200)


def harden() -> None:
    """Not dumpable (no /proc/PID/mem or ptrace from the worker), the adopter of orphans, and
    pytest with the grading plugin only (no entry-point plugin dropped into site-packages)."""
    from normkata.grading.sandbox import harden_runner

    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    harden_runner()


def serve() -> NoReturn:
    """The process's entry point (launch.python_call): answer requests until the client is done."""
    code = main()
    sys.stderr.flush()
    os._exit(code)  # every reply is written; skip torch's slow interpreter teardown


if __name__ == "__main__":
    serve()
