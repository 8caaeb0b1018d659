"""AGENTS.md in the learner's workspace: what a coding assistant beside the learner should and
should not do, for the assistants that read such a file (the same rules `normkata mcp` gives).

Written beside a starter when the workspace has none, and never over a file of that name (the
learner's own, or this one edited): it is created exclusively, so neither a race nor a link in its
place is written through.
"""

from __future__ import annotations

from pathlib import Path

from normkata.i18n import t

AGENTS_FILE = "AGENTS.md"


def agents_guide(lang: str) -> str:
    """The file's text: who wrote it, the teaching rules, how to check the learner's work."""
    parts = (t("agent.agents_md.head", lang), t("agent.rules", lang), t("agent.agents_md.tools", lang))
    return "\n\n".join(parts) + "\n"


def write_agents_guide(workspace: Path, lang: str) -> Path | None:
    """Write <workspace>/AGENTS.md unless something of that name is there; its path, else None."""
    target = workspace / AGENTS_FILE
    try:
        with target.open("x", encoding="utf-8") as file:
            file.write(agents_guide(lang))
    except FileExistsError:
        return None
    return target
