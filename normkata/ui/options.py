"""Options shared by several commands, and the state the root group hands down."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from normkata.errors import InputError
from normkata.i18n import LANGS, resolve_lang

#: Warned about once per process: an unknown NORMKATA_LANG.
_warned: set[str] = set()


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
        callback=_remember_lang,
        help="Language of questions and interface (default: NORMKATA_LANG, then the locale).",
    )(fn)


def _remember_lang(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A subcommand's --lang is the command's language for the errors worded at the edge too
    (cli.py words an error after the command has left; it reads the root's state)."""
    state = ctx.find_object(AppState)
    if value is not None and state is not None:
        state.lang_option = value
    return value


def current_lang(option: str | None) -> str:
    ctx = click.get_current_context()
    state = ctx.find_object(AppState)
    chosen = option or (state.lang_option if state else None)
    if chosen is None and not _env_lang_known():
        return "en"
    return resolve_lang(chosen)


def _env_lang_known() -> bool:
    """False for an unknown NORMKATA_LANG, after one warning on stderr.

    A stray environment variable must not lock the learner out of every command: the
    dashboard still shows, in English. (--lang, typed on purpose, is checked strictly.)
    """
    value = os.environ.get("NORMKATA_LANG", "").strip()
    if not value or value.lower()[:2] in LANGS:
        return True
    if value not in _warned:
        _warned.add(value)
        click.echo(f"Warning: NORMKATA_LANG={value!r} is not a known language (en, zh); using en.", err=True)
    return False


def workspace() -> Path:
    """The learner's workspace folder (--workspace, NORMKATA_WORKSPACE, else the default)."""
    from normkata.paths import workspace_dir

    state = click.get_current_context().find_object(AppState)
    return workspace_dir(state.workspace if state else None)


def safe_lang() -> str:
    """The language for an error message: whatever can be found without failing, else en."""
    try:
        return current_lang(None)
    except (RuntimeError, InputError):
        return "en"


def seed_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--seed", type=int, default=None, help="Fix the order of questions.")(fn)


def topic_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--topic", "-t", default=None, help="Only this topic (see `normkata progress`).")(fn)
