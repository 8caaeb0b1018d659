"""Options of the commands that grade (grade, watch, doctor, grade-all, gradescope-bundle): choices and
defaults are the grading contract's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click


def device_option(help_text: str = "auto runs the CUDA cases when a GPU is present.") -> Callable[..., Any]:
    """`--device` of the commands that grade; its choices and default are the grading contract's."""
    from normkata.grading.contract import DEVICES, GradeRequest

    return click.option(
        "--device", type=click.Choice(DEVICES), default=GradeRequest.device, show_default=True, help=help_text
    )


def timeout_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`--timeout` of the commands that grade: seconds per case, by default the grading contract's."""
    from normkata.grading.contract import CASE_TIMEOUT_S

    return click.option(
        "--timeout",
        type=click.FloatRange(min=0.5),
        default=CASE_TIMEOUT_S,
        show_default=True,
        help="Seconds any single case may take.",
    )(fn)


def visibility_option(help_text: str) -> Callable[..., Any]:
    """`--visibility`: when Gradescope shows students the tests' results (its own four values)."""
    from normkata.grading.formats import VISIBILITIES

    return click.option(
        "--visibility", type=click.Choice(VISIBILITIES), default=VISIBILITIES[0], show_default=True, help=help_text
    )
