"""`normkata doctor`: say what is wrong, before a learner or a teacher finds out the hard way."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from normkata.commands.grading_options import device_option
from normkata.ui.options import current_lang, lang_option

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from normkata.advice.doctor import GradeCheck, Report


@click.command()
@device_option("Where the katas are graded: auto is the GPU when there is one, else the CPU.")
@click.option("--kata", "only", multiple=True, help="Grade only these katas (repeatable).")
@click.option("--no-katas", is_flag=True, help="Skip grading the katas (the quick checks only).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (fields in docs/learners.md).")
@lang_option
@click.pass_context
def doctor(
    ctx: click.Context, device: str, only: tuple[str, ...], no_katas: bool, as_json: bool, lang: str | None
) -> None:
    """Check this installation: torch, the sandbox, progress files, the terminal, grading.

    Grades every kata's reference (it must pass) and starter (it must fail) the way `normkata
    grade` and `watch` do, on the GPU too when there is one, and times each grade. Exit code 0
    when all is well, 1 with one line per problem and what to do.

    \b
    Examples:
      normkata doctor
      normkata doctor --device cuda --json
      normkata doctor --kata rmsnorm --kata layernorm
      normkata doctor --no-katas
    """
    from normkata.advice import doctor as checks
    from normkata.content.katas import load_katas
    from normkata.errors import InputError
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    katas, _ = load_katas()
    unknown = [name for name in only if name not in {k.id for k in katas}]
    if unknown:
        raise InputError(f"--kata: no kata {unknown[0]!r} (known: {', '.join(k.id for k in katas)})")
    console = make_console(stderr=as_json)
    report = checks.Report()
    with console.status("Checking Python, torch and the sandbox…"):
        report.python = checks.python_facts()
        report.torch = checks.torch_facts()
        checks.triton_problem(report)
        report.sandbox = checks.sandbox_facts(report, lang)
        report.storage = checks.storage_facts(report, ctx.obj.workspace if ctx.obj else None)
        report.terminal = checks.terminal_facts()
    chosen = checks.choose_device(device, report.torch, report)
    gradeable = checks.without_missing_extras(report, [k for k in katas if not only or k.id in only])
    if chosen is not None and not no_katas:
        _grade(console, report, gradeable, chosen, lang)
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        _show(console, report)
    sys.exit(0 if report.ok else 1)


def _grade(console: Console, report: Report, katas: list, device: str, lang: str) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from normkata.advice.doctor import grade_katas

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(f"Grading references and starters on {device}", total=len(katas))
        grade_katas(report, katas, device, lang, lambda kata: progress.advance(task))


def kata_table(checks: list[GradeCheck]) -> Table:
    """Each reference and starter graded: no outer edge, and ids whole (they are what people
    type), so that 80 columns hold every row."""
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False)
    table.add_column("kata", no_wrap=True)
    for heading in ("file", "device", "path", "verdict", "score", "CUDA cases", "seconds"):
        table.add_column(heading)
    for check in checks:
        expected = check.passed if check.file == "reference" else not check.passed
        shown = "[kata.pass]pass[/]" if check.passed else "[muted]fail[/]"
        verdict = shown if expected else "[kata.fail]wrong[/]"
        score = f"{check.score}/{check.max_score}"
        row = (check.kata, check.file, check.device, check.path, verdict, score, str(check.cuda_cases))
        table.add_row(*row, f"{check.seconds:.2f}")
    return table


def _show(console: Console, report: Report) -> None:
    from rich.markup import escape

    torch = report.torch
    gpu = torch.get("gpu")
    lines = [
        f"Python {report.python['version']} ({escape(report.python['executable'])})",
        f"torch {torch['version']} ({torch['build']} build"
        + (f", CUDA {torch['cuda']}" if torch["cuda"] else "")
        + "), numpy "
        + torch["numpy"],
        f"GPU: {escape(gpu['name'])}, {gpu['memory_gib']} GiB" if gpu else "GPU: none visible to torch",
        f"Kernel katas: {escape(torch['triton'])}",
    ]
    box = report.sandbox
    lines.append(
        f"Sandbox: {box['level']} (kernel {escape(box['kernel'])}, Landlock ABI {box['landlock_abi']}, "
        f"libseccomp {'found' if box['libseccomp'] else 'not found'})"
    )
    lines += [f"  [kata.fail]missing[/] {escape(m['why'])}: {escape(m['means'])}" for m in box["missing"]]
    store = report.storage
    lines += [
        f"Progress: {escape(store['database'])} ({escape(store['database_check'])})",
        f"Bank cache: {escape(store['cache_dir'])} ({store['bank_cache']})",
        f"Workspace: {escape(store['workspace'])}",
        "Terminal: {encoding}, {width} columns, colour {colour}".format(
            encoding=report.terminal["encoding"],
            width=report.terminal["width"] or "unknown",
            colour="on" if report.terminal["colour"] else "off",
        ),
    ]
    for line in lines:
        console.print(line)
    for note in report.notes:
        console.print(f"[muted]note:[/] {escape(note.what)}\n  [muted]to add it: {escape(note.how)}[/]")
    if report.katas:
        console.print(kata_table(report.katas))
    if report.ok:
        console.print("[kata.pass]All is well.[/]")
        return
    console.print(f"[kata.fail]{len(report.problems)} problem(s):[/]")
    for problem in report.problems:
        console.print(f"- {escape(problem.what)}\n  [muted]what to do: {escape(problem.fix)}[/]")
