"""Grading katas: an untrusted worker runs the learner's code; a trusted pytest run judges it.

    client.Grader (CLI, no torch) ──JSON lines── runner (trusted: pytest, references, verdicts)
                                                    └── worker (untrusted: imports the learner's file)

What crosses each pipe is defined in contract.py (the public result) and messages.py (the
worker's messages), and converted by wire.py. What runs beside the learner's code is worker/.

The worker only ever returns tensors and plain values, decoded by codec.py (JSON and raw bytes);
nothing it does can reach the comparison or the verdict.
"""
