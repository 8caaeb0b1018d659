"""`normkata mcp`: normkata for a coding assistant (the server is normkata/agent, the SDK the `mcp` extra)."""

from __future__ import annotations

import click

from normkata.ui.options import current_lang, lang_option, workspace


@click.command("mcp")
@lang_option
def mcp_server(lang: str | None) -> None:
    """Serve katas, grading, hints and the quiz to a coding assistant (MCP on stdio).

    A Model Context Protocol server for assistants such as Claude Code or Cursor: register the
    command `normkata mcp` with yours (docs/agents.md). It grades with the same confined grader
    as `normkata grade`, records what happens as the commands do, and releases a solution only
    after a pass or when the learner gives up. Needs the optional extra: pip install "normkata[mcp]".

    \b
    Examples:
      normkata mcp
      normkata --workspace ~/katas mcp --lang zh
    """
    from normkata.errors import InputError
    from normkata.i18n import t

    lang = current_lang(lang)
    try:
        from normkata.agent.server import serve
    except ImportError as exc:  # no SDK, or one of another major (mcp 1.x has no MCPServer)
        if (exc.name or "").partition(".")[0] not in ("mcp", "mcp_types", "pydantic"):
            raise
        raise InputError(t("mcp.needs_extra", lang)) from None
    serve(workspace(), lang)
