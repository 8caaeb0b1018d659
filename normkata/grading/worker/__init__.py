"""The untrusted side of grading: everything that runs in the worker, beside the learner's code.

    serve     the worker's loop: confine, import the learner's file, answer the runner's Programs
    zygote    imported first by the forkserver that forks workers (hardens it as the runner is)
    calls     build what a Program names and make one step's call
    held      the learner's objects as torch holds them: what a reply reads of them
    stage     where the worker is in a run (what a Failure names)
    kernels/  a kernel kata's launcher run under Triton's interpreter, bounds-guarded

Only the launcher (normkata.grading.launch) imports this package, and only to start a worker:
pyproject.toml's import-linter contract "only the launcher reaches the worker" holds it. The
runner learns nothing here but what crosses the pipe (normkata.grading.messages), so nothing a
submission does in this process reaches a comparison or a verdict.
"""
