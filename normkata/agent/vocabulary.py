"""The MCP door's words for what the loop suggests: a tool and its arguments, never a shell command.

An assistant that reads `normkata quiz --id rms-formula` runs an interactive program in its shell;
one that reads `quiz_question {"id": "rms-formula"}` calls the tool. `Tools` is the vocabulary the
server speaks in while it serves a call (normkata.actions.speaking).
"""

from __future__ import annotations

import json

from normkata.actions import Action, Value

#: The tool (or prompt) that does each action, and how its arguments are named there.
TOOLS: dict[str, tuple[str, dict[str, str]]] = {
    "quiz": ("quiz_question", {"id": "id", "topic": "topic"}),
    "interview": ("interview_card", {"id": "id", "topic": "topic"}),
    "review": ("due", {}),
    "kata": ("start_kata", {"kata": "kata"}),
    "grade": ("grade", {"kata": "kata"}),
    "hint": ("hint", {"kata": "kata"}),
    "solution": ("solution", {"kata": "kata"}),
    "mock": ("mock_interview", {"minutes": "minutes"}),
}


def tool_call(action: Action) -> tuple[str, dict[str, Value]]:
    """The tool and its arguments for `action`: several ids are several calls, the first named."""
    tool, names = TOOLS[action.name]
    arguments: dict[str, Value] = {}
    for key, value in action.args:
        if key in names:
            arguments[names[key]] = value[0] if isinstance(value, tuple) else value
    return tool, arguments


def calls(action: Action) -> int:
    """How many calls of the tool the action takes (a quiz of n questions: n)."""
    ids = action.arguments.get("id")
    if isinstance(ids, tuple):
        return len(ids)
    n = action.arguments.get("n")
    return n if isinstance(n, int) and not isinstance(n, bool) else 1


class Tools:
    """The MCP server's vocabulary: `quiz_question {"topic": "rmsnorm"}`, the argument `topic`."""

    def action(self, action: Action, lang: str) -> str:
        tool, arguments = tool_call(action)
        said = f"{tool} {json.dumps(arguments, ensure_ascii=False)}" if arguments else tool
        n = calls(action)
        return f"{said} ×{n}" if n > 1 else said

    def argument(self, name: str) -> str:
        return name

    def step(self, action: Action) -> dict[str, object]:
        """A next step as data for the assistant's program: the tool and its arguments."""
        tool, arguments = tool_call(action)
        return {"tool": tool, "arguments": arguments, "calls": calls(action)}
