"""normkata: interview practice on normalization layers, in the terminal.

The package stands in layers; each imports only what stands below it (pyproject.toml's
[tool.importlinter] contract, checked in CI by `lint-imports`):

    cli, __main__      the root command; subcommands load lazily
    commands/          one module per command group: options, prompts, rendering
    agent/ notebook/   the same for a coding assistant (`normkata mcp`'s tools, the `mcp` extra)
                       and for a notebook (`%load_ext normkata`, the `notebook` extra)
    loop/              the learner's loop every door calls: grade and keep, hints, next steps, the mock
    advice/            where the learner stands, what to do next, what is wrong (doctor)
    classroom/ labs/ workbench/
                       grading a class; the documents' experiments; a learner working on katas
    practice/          quizzes, interview cards, the mock interview, FSRS scheduling
    grading/           the hidden suites' runner, the confined worker, reports and formats
    record/            the progress store, its migrations, kata attempts, export/import
    content/           question banks, cards, the kata catalog and its suites' names
    actions            a next step as data, and the vocabulary each door words it in
    ui/ files          the terminal, shared command-line options, names the learner types;
                       files and folders someone else controls, opened one guarded way
    i18n, paths        one voice in two languages (Text, t, the catalogs' lookup); where files live
    errors, threads, clock, boundedjson
                       the basics every layer may use (clock: the learner's time and zone;
                       boundedjson: JSON someone else wrote, parsed within a size and a depth)

Each wing's interface strings are a catalog of their own inside i18n (i18n/catalogs/<wing>.py),
so the lookup that every layer uses imports nothing above it.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext normkata`: the notebook's magics (normkata.notebook, the `notebook` extra).

    The door is imported here, when IPython asks, so that `import normkata` imports neither IPython
    nor torch; and by name, because every module imports this package first: a static import
    would make each of them depend on the notebook door."""
    _notebook().load_ipython_extension(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """`%unload_ext normkata`: the grading service stopped, the magics removed."""
    _notebook().unload_ipython_extension(ipython)


def _notebook() -> Any:
    import importlib

    return importlib.import_module("normkata.notebook")
