"""The terminal: did-you-mean, unknown commands, the answer editor.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "answer.editor_help": Text(
            "Write your answer above; lines starting with # are dropped. Save and close the editor to go on.",
            "在上方写下回答；以 # 开头的行会被删去。保存并关闭编辑器后继续。",
        ),
        # -- names: did-you-mean for commands, katas, topics; hint and solution ------------------
        "name.did_you_mean": Text(" (did you mean {names}?)", "（你是不是想输入 {names}？）"),
        "cli.unknown_command": Text("No such command {name!r}{hint}.", "没有命令 {name!r}{hint}。"),
        # -- reading an answer: how a prompt ends (Chinese: a full-width colon, its own spacing) --
        "prompt.end": Text(": ", "："),
    },
)
