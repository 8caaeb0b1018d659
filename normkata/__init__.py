"""normkata: interview practice on normalization layers, in the terminal.

The package stands in layers; each imports only what stands below it (pyproject.toml's
[tool.importlinter] contract, checked in CI by `lint-imports`):

    cli, __main__      the root command; subcommands load lazily
    commands/          one module per command group: options, prompts, rendering
    agent/             the same for a coding assistant: `normkata mcp`'s tools (the `mcp` extra)
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
    errors, threads, clock
                       the basics every layer may use (clock: the learner's time and zone)

Each wing's interface strings are a catalog of their own inside i18n (i18n/catalogs/<wing>.py),
so the lookup that every layer uses imports nothing above it.
"""

__version__ = "0.1.0"
