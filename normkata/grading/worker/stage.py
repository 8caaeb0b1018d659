"""Where the worker is in running a Program: the stage a `Failure` names when the learner's code raises."""

from __future__ import annotations


class Stage:
    """The stage of one run, moved on as the worker (and the kernel launcher) go.

    `name` is what `Failure.stage` says: build, load_state, forward, backward, inspect,
    method:<name> (a plain object's method), launcher or kernel (normkata.grading.worker.kernels).
    """

    def __init__(self, name: str = "build") -> None:
        self.name = name
