"""The notebook door: `%load_ext normkata` in Jupyter or IPython (the `notebook` extra).

    %%kata NAME        the cell is your file for kata NAME: graded in the confined worker
                       (never in the kernel) and recorded as `normkata grade` records it
    %kata [NAME]       a kata's instructions and starter; every kata without NAME
    %kata_hint, %kata_solution, %normkata next|plan|standing

door.py does the work on the learner's loop without IPython; magics.py is IPython's side.
"""

from __future__ import annotations

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    from normkata.notebook.magics import load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from normkata.notebook.magics import unload

    unload(ipython)
