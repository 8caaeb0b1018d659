"""The notebook door's words for what the loop suggests: a magic where the notebook has one
(`%%kata rmsnorm`, `%kata_hint rmsnorm`), the command line's words otherwise (a quiz is
interactive: it belongs in a terminal). `NOTEBOOK_WORDS` is the vocabulary the magics speak in
while they serve a cell (normkata.actions.speaking).
"""

from __future__ import annotations

from normkata.actions import COMMAND_LINE_WORDS, Action

#: The magic that does each action the notebook can do itself; its one argument is the kata.
MAGICS = {
    "grade": "%%kata",
    "kata": "%kata",
    "hint": "%kata_hint",
    "solution": "%kata_solution",
}


class NotebookWords:
    """`%%kata rmsnorm` for a grade, `normkata quiz --topic rmsnorm` for what needs a terminal."""

    def action(self, action: Action, lang: str) -> str:
        magic = MAGICS.get(action.name)
        kata = action.arguments.get("kata")
        if magic is None or not isinstance(kata, str):
            return COMMAND_LINE_WORDS.action(action, lang)
        return f"`{magic_call(magic, kata, lang)}`"

    def argument(self, name: str) -> str:
        return COMMAND_LINE_WORDS.argument(name)


def magic_call(magic: str, arguments: str, lang: str) -> str:
    """`%kata_hint rmsnorm` as typed, with `--lang zh` where a bare magic would not answer in Chinese
    (as `with_lang` for commands): a bare one answers in NORMKATA_LANG's language, or the locale's."""
    from normkata.i18n import default_is_zh, t

    return t("notebook.magic", "en" if default_is_zh() else lang, magic=magic, arguments=arguments)


NOTEBOOK_WORDS = NotebookWords()
