"""`normkata watch`: re-grade on every save."""

from __future__ import annotations

import time
from pathlib import Path

import click

from normkata.commands.grading_options import device_option, timeout_option
from normkata.ui.options import current_lang, lang_option, workspace


@click.command()
@click.argument("name", required=False)
@click.option(
    "--file",
    "file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Watch this file instead of the workspace's.",
)
@click.option("--manual", is_flag=True, help="Re-grade only when you press r (filesystems without change events).")
@click.option("--jsonl", is_flag=True, help="Print each grade as one JSON line (the grade --json object).")
@device_option()
@timeout_option
@lang_option
def watch(
    name: str | None, file: Path | None, manual: bool, jsonl: bool, device: str, timeout: float, lang: str | None
) -> None:
    """Re-grade a kata every time you save it.

    NAME defaults to the kata you worked on last, the file to <workspace>/<kata>.py. Keys:
    h next hint (the named mistake's first), n next kata (its instructions; graded at its
    first save), l list, s solution (as `normkata
    solution`: before a pass, y confirms giving up), r re-run, q quit. Each re-grade is
    recorded like a grade.

    \b
    Examples:
      normkata watch
      normkata watch rmsnorm --file ~/code/my_rmsnorm.py
      normkata watch layernorm --manual      # a filesystem without change events
      normkata watch rmsnorm --jsonl         # one JSON object per grade, for editors
    """
    from normkata.commands.watching import Watcher, WatchSettings
    from normkata.i18n import t
    from normkata.loop.learner import Learner
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    learner = Learner(workspace(), lang, warm=True)
    with learner.bench() as bench:
        chosen = bench.gradeable(name)
        target = bench.learner_file(chosen, file)
    # With --jsonl, standard output carries the JSON lines only: everything else goes to stderr.
    console = make_console(stderr=jsonl)
    settings = WatchSettings(lang, device, timeout, jsonl, manual)
    try:
        # A line that stays (a spinner alone vanishes, and shows nothing off a terminal): the
        # first start imports torch and pytest, 5-30 s on a loaded machine.
        console.print(f"[muted]{t('watch.starting', lang)}[/]")
        started = time.monotonic()
        learner.warm_up()
        console.print(f"[muted]{t('watch.ready', lang, seconds=time.monotonic() - started)}[/]")
        Watcher(chosen, target.resolve(), settings, learner, console).run()
    except KeyboardInterrupt:
        pass
    finally:
        learner.close()
    console.print(f"[muted]{t('watch.stopped', lang)}[/]")
