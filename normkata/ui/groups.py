"""Click groups that answer a mistyped subcommand with the close ones."""

from __future__ import annotations

import click


class SuggestingGroup(click.Group):
    """A group that answers a mistyped subcommand (`quizz`, `lab vanshing`) with the close ones."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        known = self.list_commands(ctx)
        if not name or name.startswith("-") or name in known:
            return super().resolve_command(ctx, args)
        from normkata.errors import InputError
        from normkata.i18n import resolve_lang, t
        from normkata.ui.names import did_you_mean

        try:  # the group's callback has not run yet: read the root's --lang, else the environment
            lang = resolve_lang(ctx.find_root().params.get("lang"))
        except InputError:  # an unknown NORMKATA_LANG: options.py warns about it once a command runs
            lang = "en"
        ctx.fail(t("cli.unknown_command", lang, name=name, hint=did_you_mean(name, known, lang)))
