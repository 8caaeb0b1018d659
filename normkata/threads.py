"""How many intra-op threads torch uses, per kind of work, unless OMP_NUM_THREADS says.

torch starts one thread per core and its threads spin while they wait for work. For the tiny
tensors of grading and the small lab models that costs more than it gains as soon as another
process holds a core. Measured on 2 cores, `normkata lab compare --quick`: one thread 8.5 s
idle and 9.0 s beside a busy process (1.07x); two threads 6.8 s idle but 17.6 s beside it
(2.6x; 89 s in an earlier, busier measurement). One thread is the choice that holds up.
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
