"""How many intra-op threads torch uses, per kind of work, unless OMP_NUM_THREADS says.

torch starts one thread per core and its threads spin while they wait for work. For the tiny
tensors of grading and the small lab models that costs more than it gains, and when another
process holds a core the spinning threads make a run several times slower (measured: the
quick compare lab, 9 s idle and 89 s beside one busy process with 2 threads on 2 cores).
Figures behind each choice: docs/grading.md (Speed) and docs/labs.md.
"""

from __future__ import annotations

import os

#: Threads measured fastest per kind of work (see the module docstring).
THREADS = {
    "grading": 1,  # tensors of a few thousand elements: a second thread only adds hand-offs
    "lab": 1,  # the labs' models (d_model <= 128) on 2 cores, idle and beside a busy process
}


def configure_threads(work: str = "grading") -> int:
    """Apply the measured thread count for `work`; an OMP_NUM_THREADS setting wins. Returns it."""
    import torch

    if not os.environ.get("OMP_NUM_THREADS"):
        torch.set_num_threads(THREADS[work])
    return torch.get_num_threads()
