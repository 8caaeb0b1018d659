"""What the worker raises for a kernel the grader cannot run as a GPU would (its report shows the
message as it is: one line saying what cannot run and why, never a misleading error)."""

from __future__ import annotations


class TritonUnsupported(Exception):
    """Something in the learner's kernel or launcher that this grade cannot run faithfully."""
