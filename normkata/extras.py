"""The optional extras: what each enables, and how to tell whether it is installed.

One table for every place that names an extra: the kata catalog (a kata's `requires`), doctor's
notes, the Gradescope bundle's install line and the tests' `extra` marker.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass


@dataclass(frozen=True)
class Extra:
    name: str
    #: The module whose presence proves the extra installed (nothing is imported to check).
    module: str
    #: What it enables, as doctor's note says it.
    enables: str

    @property
    def package(self) -> str:
        """The requirement that installs it: `pip install "normkata[triton]"`."""
        return f"normkata[{self.name}]"

    def installed(self) -> bool:
        return importlib.util.find_spec(self.module) is not None


OPTIONAL_EXTRAS: dict[str, Extra] = {
    extra.name: extra
    for extra in (
        Extra("triton", "triton", "the kernel katas (Triton 3.9.0's interpreter runs them on any CPU)"),
        Extra("mcp", "mcp", "`normkata mcp`, the grader and hints as tools for a coding assistant"),
        Extra("notebook", "IPython", "`%load_ext normkata`: `%%kata NAME` cells graded in Jupyter or IPython"),
    )
}
