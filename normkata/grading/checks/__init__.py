"""What hidden suites use: run the learner's code, compare with a float64 reference, explain.

Runs in the trusted runner. Failure messages say what was called, on what input, what came
back and what was expected, in the learner's language, and name a known misconception when the
learner's output matches the reference run with that mistake. Inputs are drawn from the run's
seed (`configure`), so a suite cannot be memorised and `--seed` reproduces a run.

One job per module: `context` (the run's seed, language and file), `inputs` (seeded inputs and
what a precision delivers), `wording` (messages, misconceptions, case names), `harness` (the one
path to the submission and the module cases), `state` (structure expectations), `functions`
(autograd Functions), `batteries` (cases several suites share), `blocks` (Transformer-block
katas). Suites import from here.
"""

from normkata.grading.checks.batteries import (
    Noise,
    drawn_forward_cases,
    forward_cases,
    gradient_cases,
    large_input_cases,
    last_dim_backward_cases,
)
from normkata.grading.checks.blocks import BlockKata, block_reference, float64_reference, random_block_state
from normkata.grading.checks.context import RunContext, configure, lang, say, say_text
from normkata.grading.checks.functions import (
    AUTOGRAD_IN_BACKWARD,
    FunctionCall,
    Suspects,
    backward_case,
    expect_no_autograd,
    invalid_gradient,
)
from normkata.grading.checks.harness import STATEFUL, ErrorSuspect, Harness, build_failure, once
from normkata.grading.checks.inputs import DEVICES, Input, draw, own_errors, randn, rounding_unit, seeded, shape_id
from normkata.grading.checks.state import expect_contains, expect_keys, expect_parameters, load_fix
from normkata.grading.checks.wording import (
    CaseFailure,
    LearnerError,
    Misconception,
    broadcast_sizes,
    call_on,
    call_text,
    exception_name,
    explain,
    fail,
    is_broadcast_error,
    misconceptions,
)

__all__ = [
    "AUTOGRAD_IN_BACKWARD",
    "BlockKata",
    "block_reference",
    "float64_reference",
    "random_block_state",
    "DEVICES",
    "STATEFUL",
    "CaseFailure",
    "ErrorSuspect",
    "FunctionCall",
    "Harness",
    "Input",
    "LearnerError",
    "Noise",
    "Misconception",
    "RunContext",
    "Suspects",
    "backward_case",
    "broadcast_sizes",
    "build_failure",
    "call_on",
    "call_text",
    "configure",
    "draw",
    "expect_contains",
    "expect_keys",
    "expect_no_autograd",
    "expect_parameters",
    "exception_name",
    "load_fix",
    "explain",
    "fail",
    "drawn_forward_cases",
    "forward_cases",
    "gradient_cases",
    "invalid_gradient",
    "is_broadcast_error",
    "lang",
    "large_input_cases",
    "last_dim_backward_cases",
    "misconceptions",
    "once",
    "own_errors",
    "randn",
    "rounding_unit",
    "say",
    "say_text",
    "seeded",
    "shape_id",
]
