"""What the worker reads of a learner's module (normkata.grading.worker.held) is what torch holds, named as
torch names it, whatever the learner's class and tensors say about themselves; and what the runner
derives from it (contract.Inspection, StateLoad) agrees with torch's own answers. In process: no
grade runs here (the graded hostile fixtures are in katas/*/fixtures, tests/grading/test_fixtures.py)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from normkata.grading.messages import Inspection, StateLoad
from normkata.grading.worker import held

_REQUIRES_GRAD = vars(torch._C.TensorBase)["requires_grad"]
_SHAPE = vars(torch._C.TensorBase)["shape"]
_DTYPE = vars(torch._C.TensorBase)["dtype"]


class Lying(torch.Tensor):
    """Answers torch's own getters (as __torch_function__ is asked them) with what a grader would like."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        owner = getattr(func, "__self__", None)
        if owner is _REQUIRES_GRAD:
            return False
        if owner is _SHAPE:
            return torch.Size([1])
        if owner is _DTYPE:
            return torch.float64
        if getattr(func, "__name__", "") in ("detach", "clone"):
            return torch.zeros(1)
        with torch._C.DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))


class Inner(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3))
        self.register_buffer("stat", torch.zeros(3))
        self.register_buffer("scratch", torch.ones(2), persistent=False)
        self.register_buffer("absent", None)


class Outer(nn.Module):
    """Shared submodules, a tied parameter, a frozen one, a ModuleList and a None child."""

    def __init__(self) -> None:
        super().__init__()
        self.a = Inner()
        self.b = self.a  # one module, two names
        self.blocks = nn.ModuleList([Inner(), Inner()])
        self.blocks[1].weight = self.blocks[0].weight  # tied
        self.frozen = nn.Parameter(torch.randn(2), requires_grad=False)
        self.register_module("nothing", None)
        self.register_parameter("unset", None)


def _torch_view(module: nn.Module) -> tuple[list[str], list[str], list[str], list[str]]:
    return (
        [n for n, _ in module.named_parameters()],
        [n for n, _ in module.named_buffers()],
        list(module.state_dict()),
        [n for n, _ in module.named_children()],
    )


def test_a_module_is_named_as_torch_names_it() -> None:
    module = Outer()
    got = held.held_module(module)
    parameters, buffers, state, children = _torch_view(module)
    assert got.parameters == parameters
    assert got.buffers == [*buffers, "a.absent", "blocks.0.absent", "blocks.1.absent"]
    assert got.state_dict == state and got.children == children
    for name, value in module.state_dict().items():
        assert torch.equal(got.tensors[name], value)
    assert got.tensors["a.absent"] is None


def test_the_runner_sees_which_tensors_require_grad_from_autograd() -> None:
    module = Outer()
    x = torch.randn(3, requires_grad=True)
    module.a.stat = module.a.stat * 0.9 + 0.1 * x  # a buffer carrying its input's graph (batchnorm's mistake)
    info = Inspection.observe(held.held_module(module))
    assert info.parameters["a.weight"].requires_grad and info.parameters["a.weight"].is_parameter
    assert not info.parameters["frozen"].requires_grad
    stat = info.buffers["a.stat"]
    assert stat is not None and stat.requires_grad and not stat.is_parameter
    blocks_stat = info.buffers["blocks.0.stat"]
    assert blocks_stat is not None and not blocks_stat.requires_grad
    assert info.parameters["a.weight"].shape == [3] and info.parameters["a.weight"].dtype == "float32"


class Liar(nn.Module):
    """Every way a module can describe itself: overridden listings, and tensors answering for themselves."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("running", (torch.randn(4, requires_grad=True) * 2).as_subclass(Lying))
        self.weight = nn.Parameter(torch.ones(4), requires_grad=False)
        self.hidden = nn.Linear(2, 2)

    def named_parameters(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        yield "weight", nn.Parameter(torch.ones(4))

    def named_buffers(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        yield "running", torch.zeros(4)

    def named_children(self):  # type: ignore[no-untyped-def]
        yield "norm", nn.Identity()

    def state_dict(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return {"weight": torch.ones(4)}


def test_what_a_module_and_its_tensors_say_of_themselves_is_not_read() -> None:
    module = Liar()
    running = module.running
    assert running.requires_grad is False and running.shape == (1,)  # what it says, asked
    info = Inspection.observe(held.held_module(module))
    assert list(info.parameters) == ["weight", "hidden.weight", "hidden.bias"]
    assert not info.parameters["weight"].requires_grad
    assert info.children == ["hidden"] and info.state_dict == ["weight", "running", "hidden.weight", "hidden.bias"]
    got = info.buffers["running"]
    assert got is not None and got.requires_grad and got.shape == [4] and got.dtype == "float32"
    with torch.no_grad():
        assert torch.equal(got.value, torch.Tensor.as_subclass(running, torch.Tensor).detach())
    assert type(got.value) is torch.Tensor


def test_plain_copies_what_torch_holds_and_probe_refuses_integers() -> None:
    lying = torch.arange(6.0).reshape(2, 3).as_subclass(Lying)
    copy = held.plain(lying)
    assert type(copy) is torch.Tensor and copy.shape == (2, 3) and torch.equal(copy, torch.arange(6.0).reshape(2, 3))
    assert held.probe(torch.zeros(3, dtype=torch.long)) is None
    assert held.probe(torch.zeros(3)) is None
    grad = held.probe(nn.Parameter(torch.zeros(2, 2)))
    assert grad is not None and torch.equal(grad, torch.ones(2, 2))


class OwnValueError(Exception):
    pass


OwnValueError.__name__ = "ValueError"


class Specific(ValueError):
    pass


@pytest.mark.parametrize(
    ("error", "name"),
    [
        (ValueError("x"), "ValueError"),
        (Specific("x"), "ValueError"),
        (OwnValueError("x"), "Exception"),
        (KeyError("x"), "KeyError"),
    ],
)
def test_an_exception_is_named_as_except_matches_it(error: BaseException, name: str) -> None:
    assert held.builtin_name(error) == name


@pytest.mark.parametrize(
    "offered",
    [
        {"weight": torch.ones(3), "bias": torch.zeros(3)},  # what fits
        {"weight": torch.ones(4), "bias": torch.zeros(3)},  # a shape that does not
        {"weight": torch.ones(3)},  # one entry missing
        {"weight": torch.ones(3), "bias": torch.zeros(3), "extra": torch.zeros(1)},  # one unexpected
    ],
)
def test_load_findings_are_torchs_own(offered: dict[str, torch.Tensor]) -> None:
    """StateLoad.derive, from the state offered and the module as torch holds it, says what torch's
    load_state_dict says: missing and unexpected keys, and the entries whose shapes differ."""
    module = nn.LayerNorm(3)
    derived = StateLoad.derive(offered, Inspection.observe(held.held_module(module)))
    try:
        result = nn.LayerNorm(3).load_state_dict(offered, strict=False)
        mismatched: list[str] = []
    except RuntimeError as error:  # torch refuses shape mismatches even when not strict
        mismatched = sorted(k for k in offered if f"size mismatch for {k}:" in str(error))
        result = nn.LayerNorm(3).load_state_dict(
            {k: v for k, v in offered.items() if k not in mismatched}, strict=False
        )
    assert derived.mismatched == mismatched
    assert derived.missing == sorted(k for k in result.missing_keys if k not in mismatched)
    assert derived.unexpected == sorted(result.unexpected_keys)


def test_loading_offers_what_fits_torch_held_shapes() -> None:
    class Renames(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.alpha = nn.Parameter(torch.zeros(4))

        def state_dict(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            return {"alpha": torch.zeros(1)}  # says it would take a (1,) alpha

    module = Renames()
    held.load_what_fits(module, {"alpha": torch.ones(1)})  # torch holds (4,): not offered, nothing raised
    assert torch.equal(module.alpha.detach(), torch.zeros(4))
    held.load_what_fits(module, {"alpha": torch.ones(4)})
    assert torch.equal(module.alpha.detach(), torch.ones(4))
