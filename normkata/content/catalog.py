"""Content: `content check` and the names a learner types for topics and katas.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up.
"""

from __future__ import annotations

from normkata.i18n import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "content.ok": Text(
            "OK: {questions} questions and {cards} interview cards in {files} file(s).",
            "通过：{files} 个文件，共 {questions} 道题、{cards} 张面试卡片。",
        ),
        "content.katas": Text("OK: {n} kata(s): {names}.", "通过：{n} 个编程练习：{names}。"),
        "content.deep.running": Text("Grading references, starters and fixtures", "正在评测参考实现、初始代码和样例"),
        "content.deep.ok": Text(
            "OK: {n} kata(s) prove their suites (references pass, starters fail, every fixture and misconception "
            "checks out).",
            "通过：{n} 个编程练习的评测套件自证无误（参考实现通过、初始代码失败、每个样例和常见错误都得到验证）。",
        ),
        "content.deep.no_fixtures": Text(
            "No kata here has fixtures (katas/<id>/fixtures/): references and starters were checked, "
            "fixtures were not.",
            "这里的练习都没有样例（katas/<id>/fixtures/）：已检查参考实现和初始代码，未检查样例。",
        ),
        "content.errors": Text("{n} error(s) found.", "发现 {n} 处错误。"),
        "kata.unknown": Text(
            "unknown kata {name!r}{hint} (known: {known})", "没有编程练习 {name!r}{hint}（可选：{known}）"
        ),
        "topic.unknown": Text(
            "--topic: unknown topic {topic!r}{hint} (known: {known})",
            "--topic：没有主题 {topic!r}{hint}（可选：{known}）",
        ),
        "content.links.unlinked": Text(
            "Misconceptions no question or card teaches yet ({n}): {ids}",
            "尚无题目或卡片讲解的误区（{n} 个）：{ids}",
        ),
    },
)
