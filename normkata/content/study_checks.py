"""What `content check` says of the order of study and of each kata's home topic: every problem
at its file's line. Apart from normkata.content.study, which reads the order through the bank:
the bank's own check needs these, and nothing of the bank's loading."""

from __future__ import annotations

from typing import TYPE_CHECKING

from normkata.content.model import Bank, ContentIssue, Message, Topic

if TYPE_CHECKING:
    from normkata.content.katas import Kata


def check_study_order(bank: Bank) -> list[ContentIssue]:
    """Two topics in one place, a prerequisite the bank lacks, one that comes later in the order,
    prerequisites in a circle, a core topic with no place: each at its file's line."""
    issues: list[ContentIssue] = []
    topics = bank.topics

    def issue(at: Topic, which: int, field: str, key: str, **fields: object) -> None:
        issues.append(ContentIssue(at.file, at.lines[which], field, Message(key, fields)))

    placed: dict[int, str] = {}
    for topic in topics.values():
        if topic.order is None:
            if topic.core:
                issue(topic, 2, "core", "check.topic.core_unordered")
            continue
        if topic.order in placed:
            issue(topic, 0, "order", "check.topic.order_twice", order=topic.order, other=repr(placed[topic.order]))
        else:
            placed[topic.order] = topic.id
    for topic in topics.values():
        for need in topic.requires:
            if need not in topics:
                issue(topic, 1, "requires", "check.topic.requires_unknown", topic=repr(need))
    cycle = _cycle({t.id: [n for n in t.requires if n in topics] for t in topics.values()})
    if cycle:
        issue(topics[cycle[0]], 1, "requires", "check.topic.cycle", cycle=" -> ".join(cycle))
        return issues
    for topic in topics.values():
        for need in topic.requires:
            if need in topics and not _before(topics[need], topic):
                issue(topic, 1, "requires", "check.topic.requires_later", topic=repr(need))
    return issues


def _before(need: Topic, topic: Topic) -> bool:
    """Whether `need` comes before `topic` in the order of study (an unplaced topic after every placed one)."""
    if topic.order is None:
        return True  # unplaced topics keep the bank's order; a placed prerequisite is before them
    return need.order is not None and need.order < topic.order


def _cycle(graph: dict[str, list[str]]) -> list[str]:
    """A circle of prerequisites, its first topic repeated at the end (`a -> b -> a`); [] if none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for need in graph.get(node, []):
            if state.get(need) == 1:
                return [*path[path.index(need) :], need]
            if need not in state and (found := visit(need)):
                return found
        path.pop()
        state[node] = 2
        return []

    for node in graph:
        if node not in state and (found := visit(node)):
            return found
    return []


def check_homes(bank: Bank, katas: list[Kata]) -> list[ContentIssue]:
    """A kata whose home topic (kata.yaml's `home:`) the bank does not have."""
    return [
        ContentIssue(
            str(k.folder / "kata.yaml"),
            k.lines.get("home", 1),
            "home",
            Message.of("check.kata.home_unknown", topic=repr(k.home)),
        )
        for k in katas
        if k.home is not None and k.home not in bank.topics
    ]
