"""`normkata mcp`: the tutor's tools and resources on a Model Context Protocol server over stdio.

The only module that imports the `mcp` SDK (the optional extra). Each tool is one call into the
Tutor; what it answers becomes the result's text and structured content. Whatever goes wrong is
a tool error of one line (a traceback goes to stderr only, for a bug); stdout carries nothing but
protocol messages: the SDK's stdio transport points file descriptor 1 at stderr while it serves,
and every report is rendered to a string, never printed.

The descriptions are what the assistant reads about each tool: they say what it does and how a
teaching assistant uses it (explain the named mistake, hints in order, never the solution).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from normkata import __version__
from normkata.agent.tutor import MAX_SEED, Reply, Tutor
from normkata.errors import InputError
from normkata.grading.errors import GraderError
from normkata.i18n import t

log = logging.getLogger(__name__)

KATA = "A kata id, as list_katas gives it (e.g. rmsnorm)."
KATA_OR_LAST = KATA + " Default: the kata the learner worked on last."

LIST_KATAS = (
    "Every kata: id, title, difficulty, minutes, topics, the learner's status (not started, in progress, "
    "passed) and best score."
)
INSTRUCTIONS = (
    "A kata's instructions (Markdown) and the path of the learner's file for it. Read them before "
    "helping; they say what the learner must write, not how."
)
START_KATA = (
    "Start a kata: write its starter into the learner's workspace (never over a file the learner has "
    "there) and return the instructions. The learner writes the code; do not write it for them."
)
GRADE = (
    "Grade the learner's file for a kata with normkata's hidden test suite, in the same confined grader as "
    "`normkata grade`; recorded as an attempt. Returns the verdict, counts, the named mistakes with their hints "
    "and the failing cases. Explain each named mistake in your own words and show where it appears in the "
    "learner's code; ask a question that leads them to the fix. Do not write the fix or the solution."
)
HINT = (
    "The next of the kata's hints (levels in order, each more direct), recorded as taken. Give hints one at a "
    "time, in this order, when the learner asks or is stuck; do not skip ahead and do not add the answer."
)
SOLUTION = (
    "The kata's reference solution, once the kata has passed (with a diff against the learner's passing "
    "file). Before a pass it is refused, with the reason. Set give_up only when the learner has told you in their "
    "own words that they give up: it is recorded as giving up. Never set it on your own."
)
QUIZ_QUESTION = (
    "One quiz question (as `normkata quiz` draws it) without its answer: the prompt, the choices, the "
    "answer format and its id. Show it to the learner and let them answer; do not answer it for them."
)
CHECK_ANSWER = (
    "Check the learner's answer to a quiz question and record it (scheduling the question's next "
    "review): right or wrong, the expected answer and the explanation. Pass the learner's answer as they gave "
    "it, never one of your own."
)
INTERVIEW_CARD = (
    "One interview card (as `normkata interview` draws it): the question only, without its key points or model "
    "answer. Let the learner answer, then call rate_card with their own rating."
)
RATE_CARD = (
    "Record the learner's own rating of their answer to an interview card (1 Again, 2 Hard, 3 Good, 4 Easy), "
    "scheduled by FSRS; returns the key points and the model answer to compare with. Never rate for them."
)
NEXT_STEP = "The single most useful next step for the learner: the tool to call, its arguments and why."
PLAN = (
    "The plan toward the learner's interview date (when one is set), day by day, or for the minutes given: each "
    "step a tool to call with its arguments, its minutes and why."
)
DUE = "What is due now: quiz questions and interview cards by id, and katas to write again."
STANDING = (
    "Where the learner stands: mastery per topic, what is due, katas passed, mistakes met this week, and "
    "the single most useful next step with its reason."
)


class GradeOutput(TypedDict, total=False):
    """`normkata grade --json`'s keys, then what the tutor adds."""

    kata: str
    file: str
    passed: bool
    score: float
    max_score: float
    counts: dict[str, int]
    seed: int
    cases: list[dict[str, Any]]
    diagnosis: list[dict[str, Any]]
    torch: str
    lang: str
    sandbox: Any
    recorded: bool
    notes: list[dict[str, Any]]
    next: dict[str, Any] | None
    warnings: list[str]
    mistakes: list[dict[str, Any]]
    failing_cases: list[dict[str, Any]]


class StepOutput(TypedDict):
    tool: str
    arguments: dict[str, Any]
    calls: int
    say: str
    minutes: int
    why: str


class HintOutput(TypedDict, total=False):
    kata: str
    hint: str | None
    passed: bool
    misconception: str
    title: str
    level: int
    total: int
    last: bool


class QuestionOutput(TypedDict):
    id: str
    topic: str
    topic_title: str
    difficulty: str
    type: str
    prompt: str
    choices: list[dict[str, str]]
    precision: str | None
    answer_format: str


class CardOutput(TypedDict):
    id: str
    topic: str
    topic_title: str
    difficulty: str
    prompt: str


class RatedOutput(TypedDict):
    id: str
    rating: int
    due: str
    key_points: list[str]
    model_answer: str
    source: str


class CheckedOutput(TypedDict):
    id: str
    correct: bool
    given: str
    expected: str
    explanation: str
    source: str
    comes_back: str | None


class DueOutput(TypedDict):
    items: list[dict[str, str]]
    katas: list[dict[str, str]]
    warnings: list[str]


class PlanOutput(TypedDict, total=False):
    steps: list[dict[str, Any]]
    days: list[dict[str, Any]]
    until: str


class StandingOutput(TypedDict, total=False):
    topics: list[dict[str, Any]]
    due: int
    katas: list[dict[str, Any]]
    next: dict[str, Any]


READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
RECORDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


def build_server(tutor: Tutor) -> MCPServer:
    lang = tutor.lang
    server = MCPServer(
        "normkata",
        title="normkata",
        instructions=f"{t('agent.rules', lang)}\n\n{t('agent.flow', lang)}",
        version=__version__,
        log_level="WARNING",  # stderr; every call would log at INFO
        middleware=[one_line_tool_errors],
    )

    def result(call: Callable[[], Reply]) -> CallToolResult:
        try:
            reply = call()
        except Exception as exc:
            raise ToolError(one_line(exc, lang)) from None
        return CallToolResult(content=[TextContent(type="text", text=reply.text)], structured_content=reply.data)

    @server.tool(description=LIST_KATAS, annotations=READ_ONLY)
    def list_katas() -> CallToolResult:
        return result(tutor.list_katas)

    @server.tool(description=INSTRUCTIONS, annotations=READ_ONLY)
    def instructions(kata: Annotated[str, Field(description=KATA)]) -> CallToolResult:
        return result(lambda: tutor.instructions(kata))

    @server.tool(description=START_KATA, annotations=RECORDS)
    def start_kata(kata: Annotated[str, Field(description=KATA)]) -> CallToolResult:
        return result(lambda: tutor.start_kata(kata))

    @server.tool(description=GRADE, annotations=RECORDS, structured_output=True)
    def grade(
        kata: Annotated[str | None, Field(description=KATA_OR_LAST)] = None,
        file: Annotated[
            str | None,
            Field(
                description="The file to grade. Default: the learner's file of the kata "
                "in the workspace (see instructions)."
            ),
        ] = None,
        seed: Annotated[
            int | None,
            Field(
                ge=0,
                le=MAX_SEED,
                strict=True,
                description="Draw the inputs from this seed (default: a fresh one, given in the result).",
            ),
        ] = None,
    ) -> Annotated[CallToolResult, GradeOutput]:
        return result(lambda: tutor.grade(kata, file, seed))

    @server.tool(description=HINT, annotations=RECORDS, structured_output=True)
    def hint(
        kata: Annotated[str | None, Field(description=KATA_OR_LAST)] = None,
    ) -> Annotated[CallToolResult, HintOutput]:
        return result(lambda: tutor.hint(kata))

    @server.tool(description=SOLUTION, annotations=RECORDS)
    def solution(
        kata: Annotated[str | None, Field(description=KATA_OR_LAST)] = None,
        give_up: Annotated[
            bool,
            Field(
                strict=True,
                description="True only when the learner has said they give up on this kata (recorded as giving up).",
            ),
        ] = False,
    ) -> CallToolResult:
        return result(lambda: tutor.solution(kata, give_up))

    @server.tool(description=QUIZ_QUESTION, annotations=READ_ONLY, structured_output=True)
    def quiz_question(
        topic: Annotated[str | None, Field(description="Only this topic (its id or title, e.g. rmsnorm).")] = None,
        id: Annotated[str | None, Field(description="This question, by its id.")] = None,
    ) -> Annotated[CallToolResult, QuestionOutput]:
        return result(lambda: tutor.quiz_question(topic, id))

    @server.tool(description=CHECK_ANSWER, annotations=RECORDS, structured_output=True)
    def check_answer(
        id: Annotated[str, Field(description="The question's id, from quiz_question.")],
        answer: Annotated[
            str,
            Field(
                description="The learner's answer, as they gave it (letters such as B or AC, true/false, or a number)."
            ),
        ],
    ) -> Annotated[CallToolResult, CheckedOutput]:
        return result(lambda: tutor.check_answer(id, answer))

    @server.tool(description=INTERVIEW_CARD, annotations=READ_ONLY, structured_output=True)
    def interview_card(
        topic: Annotated[str | None, Field(description="Only this topic (its id or title, e.g. prenorm).")] = None,
        id: Annotated[str | None, Field(description="This card, by its id.")] = None,
    ) -> Annotated[CallToolResult, CardOutput]:
        return result(lambda: tutor.interview_card(topic, id))

    @server.tool(description=RATE_CARD, annotations=RECORDS, structured_output=True)
    def rate_card(
        id: Annotated[str, Field(description="The card's id, from interview_card.")],
        rating: Annotated[
            int,
            Field(ge=1, le=4, strict=True, description="The learner's own rating: 1 Again, 2 Hard, 3 Good, 4 Easy."),
        ],
        answer: Annotated[str, Field(description="The learner's answer, as they gave it (kept with the rating).")] = "",
    ) -> Annotated[CallToolResult, RatedOutput]:
        return result(lambda: tutor.rate_card(id, rating, answer))

    @server.tool(description=DUE, annotations=READ_ONLY, structured_output=True)
    def due() -> Annotated[CallToolResult, DueOutput]:
        return result(tutor.due)

    @server.tool(description=NEXT_STEP, annotations=READ_ONLY, structured_output=True)
    def next_step() -> Annotated[CallToolResult, StepOutput]:
        return result(tutor.next_step)

    @server.tool(description=PLAN, annotations=READ_ONLY, structured_output=True)
    def plan(
        minutes: Annotated[
            int | None,
            Field(
                ge=1,
                le=24 * 60,
                strict=True,
                description="Plan this many minutes now, ignoring an interview date (default: the dated plan, "
                "else 20 minutes).",
            ),
        ] = None,
    ) -> Annotated[CallToolResult, PlanOutput]:
        return result(lambda: tutor.plan(minutes))

    @server.tool(description=STANDING, annotations=READ_ONLY, structured_output=True)
    def standing() -> Annotated[CallToolResult, StandingOutput]:
        return result(tutor.standing)

    for name, key, description in PROMPTS:
        server.prompt(name=name, description=description)(_prompt(key, lang))

    @server.resource(
        "normkata://katas/{kata}/instructions",
        name="instructions",
        mime_type="text/markdown",
        description="A kata's instructions, in the learner's language.",
    )
    def instructions_resource(kata: str) -> str:
        return read(lambda: str(tutor.instructions(kata).data["instructions"]), lang)

    @server.resource(
        "normkata://katas/{kata}/file",
        name="learner_file",
        mime_type="text/x-python",
        description="The learner's own file of a kata, as it is now in their workspace.",
    )
    def learner_file_resource(kata: str) -> str:
        return read(lambda: tutor.learner_file(kata), lang)

    return server


#: The teaching rules as prompts a client can offer: (name, catalog key, description).
PROMPTS = (
    ("tutor", "agent.prompt.tutor", "Be the learner's teaching assistant for a kata session."),
    ("mock_interview", "agent.prompt.mock", "Run a timed mock interview from normkata's interview cards."),
    ("review", "agent.prompt.review", "Go through what is due now, one item at a time."),
    ("explain_mistake", "agent.prompt.explain", "Explain the mistake the learner's last grade named."),
)


def _prompt(key: str, lang: str) -> Callable[[], str]:
    def prompt() -> str:
        return f"{t('agent.rules', lang)}\n\n{t(key, lang)}"

    return prompt


async def one_line_tool_errors(ctx: Any, call_next: Any) -> Any:
    """Every tool error on one line, the SDK's own too (arguments that fail validation are
    reported by pydantic over several lines, with a link to its documentation). The chain
    answers the wire's form: a dict, `isError` and `content` as the protocol names them."""
    result = await call_next(ctx)
    if isinstance(result, dict) and result.get("isError") and isinstance(result.get("content"), list):
        text = " ".join(str(block.get("text", "")) for block in result["content"] if isinstance(block, dict))
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        shown = " ".join(line for line in lines if not line.startswith("For further information visit"))
        return {**result, "content": [{"type": "text", "text": shown}]}
    return result


def read(call: Callable[[], str], lang: str) -> str:
    """A resource's text; what goes wrong, one line."""
    try:
        return call()
    except Exception as exc:
        raise ResourceError(one_line(exc, lang)) from None


def one_line(exc: Exception, lang: str) -> str:
    """What the assistant reads instead of a traceback, on one line: bad input and refusals as the
    command line says them, a database or file failure said plainly; a bug named, its traceback on stderr."""
    from normkata.record.store import explain, is_database_error

    if isinstance(exc, InputError | GraderError):
        text = str(exc)
    elif is_database_error(exc):
        text = str(explain(exc, lang=lang))
    elif isinstance(exc, OSError):
        text = f"{exc.filename}: {exc.strerror or exc}" if exc.filename else str(exc.strerror or exc)
    else:
        log.error("normkata mcp: unexpected error", exc_info=exc)
        text = f"normkata failed ({type(exc).__name__}: {exc}); the server's stderr has the details"
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def serve(workspace: Path, lang: str) -> None:
    """Serve on stdin and stdout until the client closes them."""
    tutor = Tutor(workspace, lang)
    try:
        build_server(tutor).run("stdio")
    finally:
        tutor.close()
