"""Options shared by several commands, and the state the root group hands down."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click

from normkata.i18n import LANGS, resolve_lang


@dataclass
class AppState:
    lang_option: str | None = None
    workspace: str | None = None


def lang_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--lang on a subcommand; falls back to the root's --lang, NORMKATA_LANG, the locale."""
    return click.option(
        "--lang",
        type=click.Choice(LANGS),
        default=None,
        help="Language of questions and interface (default: NORMKATA_LANG, then the locale).",
    )(fn)


def current_lang(option: str | None) -> str:
    ctx = click.get_current_context()
    state = ctx.find_object(AppState)
    return resolve_lang(option or (state.lang_option if state else None))


def seed_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--seed", type=int, default=None, help="Fix the order of questions.")(fn)


def topic_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--topic", "-t", default=None, help="Only this topic (see `normkata progress`).")(fn)
