"""Imported first by the zygote that forks grading workers (normkata.grading.launch).

Importing it hardens the zygote as the runner hardens itself: not dumpable, so no worker can
open /proc/<zygote>/mem or ptrace it even where confinement is partial (a poisoned zygote
would poison every later worker, other learners' included), and the subreaper of anything
its workers leave behind, so the runner's clean-up finds it.
"""

from normkata.grading.sandbox import harden_runner

harden_runner()
