"""The untrusted side of grading: import the learner's file and run what the runner asks.

Run as `python -m normkata.grading.worker REQUEST_FD REPLY_FD`. It answers requests with raw
outputs only (tensors, shapes, names); it never sees a reference value or a verdict. Before the
learner's file is imported, normkata itself is made unimportable and the content folders
(reference solutions, hidden suites) unreadable from this process.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import traceback
from types import ModuleType
from typing import Any

import torch

from normkata.grading.protocol import receive, send

_DTYPES = {
    "float32": torch.float32,
    "float64": torch.float64,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
    "int64": torch.int64,
}


class Forbidden(Exception):
    """Raised in place of a torch API the kata forbids."""


class _Session:
    def __init__(self) -> None:
        self.learner_file = ""
        self.module: ModuleType | None = None
        self.forbidden_calls: list[str] = []

    # -- loading the learner's file ------------------------------------------------------------

    def load(self, request: dict[str, Any]) -> dict[str, Any]:
        self.learner_file = os.path.abspath(request["file"])
        _guard_content(request["protected"])
        for dotted in request["forbidden"]:
            self._forbid(dotted)
        before = _global_state()
        name = os.path.splitext(os.path.basename(self.learner_file))[0]
        spec = importlib.util.spec_from_file_location(name, self.learner_file)
        if spec is None or spec.loader is None:
            return {"ok": False, "error": "ImportError", "message": "cannot import this file", "line": 0}
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except SyntaxError as exc:
            return {"ok": False, "error": "SyntaxError", "message": exc.msg or str(exc), "line": exc.lineno or 0}
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the file must import cleanly
            return self._failure(exc, "import")
        self.module = module
        after = _global_state()
        changed = [f"{key}: {before[key]} -> {after[key]}" for key in before if before[key] != after[key]]
        missing = [cls for cls in request["classes"] if not isinstance(getattr(module, cls, None), type)]
        return {"ok": True, "missing": missing, "global_changes": changed}

    def _forbid(self, dotted: str) -> None:
        owner_path, _, attribute = dotted.rpartition(".")
        owner: Any = torch
        for part in owner_path.split(".")[1:]:
            owner = getattr(owner, part)
        original = getattr(owner, attribute, None)
        if original is None:
            return
        calls = self.forbidden_calls

        if isinstance(original, type):

            class Sentinel(original):  # type: ignore[misc, valid-type]
                def __init__(self, *args: Any, **kwargs: Any) -> None:
                    calls.append(dotted)
                    raise Forbidden(f"{dotted} is not allowed in this kata: write it yourself")

            replacement: Any = Sentinel
        else:

            def replacement(*args: Any, **kwargs: Any) -> Any:
                calls.append(dotted)
                raise Forbidden(f"{dotted} is not allowed in this kata: write it yourself")

        setattr(owner, attribute, replacement)

    # -- running a program ---------------------------------------------------------------------

    def run(self, program: dict[str, Any]) -> dict[str, Any]:
        assert self.module is not None
        try:
            return self._run(program)
        except BaseException as exc:
            return self._failure(exc, "run")

    def _run(self, program: dict[str, Any]) -> dict[str, Any]:
        torch.manual_seed(program.get("seed", 0))
        cls = getattr(self.module, program["cls"])
        kwargs = {k: _DTYPES.get(v, v) if k == "dtype" else v for k, v in program.get("kwargs", {}).items()}
        module = cls(*program.get("args", []), **kwargs)
        if not isinstance(module, torch.nn.Module):
            raise TypeError(f"{program['cls']}(...) is not a torch.nn.Module")
        if program.get("state") is not None:
            module.load_state_dict(program["state"], strict=True)
        move = program.get("to")
        if move:
            moved = module.to(device=move.get("device"), dtype=_DTYPES.get(move.get("dtype")))
            module = moved if moved is not None else module
        module.train(program.get("mode", "train") == "train")
        device = (move or {}).get("device") or "cpu"
        steps = [self._step(module, step, device) for step in program.get("steps", [])]
        reply: dict[str, Any] = {"ok": True, "steps": steps, "forbidden_calls": sorted(set(self.forbidden_calls))}
        if program.get("inspect"):
            reply["inspect"] = _inspect(module, program.get("attrs", []))
        return reply

    def _step(self, module: torch.nn.Module, step: dict[str, Any], device: str) -> dict[str, Any]:
        if "mode" in step:
            module.train(step["mode"] == "train")
        inputs = [t.to(device) for t in step["inputs"]]
        if step.get("input_grad"):
            inputs = [t.detach().requires_grad_(True) for t in inputs]
        context = torch.no_grad() if step.get("no_grad") else contextlib.nullcontext()
        try:
            with context:
                output = module(*inputs)
        except Exception as exc:
            if step.get("expect_error"):
                return {"raised": type(exc).__name__, "message": str(exc)[:300]}
            raise
        if not isinstance(output, torch.Tensor):
            raise TypeError(f"forward returned {type(output).__name__}, expected a torch.Tensor")
        result: dict[str, Any] = {"output": _plain(output), "raised": None}
        if step.get("grad_output") is not None:
            module.zero_grad(set_to_none=True)
            output.backward(step["grad_output"].to(device=output.device, dtype=output.dtype))
            result["input_grads"] = [_plain(t.grad) if t.grad is not None else None for t in inputs]
            result["param_grads"] = {
                name: _plain(p.grad) if p.grad is not None else None for name, p in module.named_parameters()
            }
        if step.get("buffers"):
            result["buffers"] = {name: _plain(b) for name, b in module.named_buffers()}
        return result

    def _failure(self, exc: BaseException, stage: str) -> dict[str, Any]:
        line = 0
        for frame in traceback.extract_tb(exc.__traceback__):
            if os.path.abspath(frame.filename) == self.learner_file:
                line = frame.lineno or 0
        message = str(exc) if not isinstance(exc, SystemExit) else f"exit code {exc.code}"
        return {
            "ok": False,
            "stage": stage,
            "error": type(exc).__name__,
            "message": message[:500],
            "line": line,
            "forbidden_calls": sorted(set(self.forbidden_calls)),
        }


def _plain(tensor: torch.Tensor) -> torch.Tensor:
    """A detached plain CPU tensor: no subclass, no graph, nothing custom to unpickle."""
    return tensor.detach().as_subclass(torch.Tensor).to("cpu").clone()


def _inspect(module: torch.nn.Module, attrs: list[str]) -> dict[str, Any]:
    def describe(t: torch.Tensor | None) -> dict[str, Any] | None:
        if t is None:
            return None
        return {
            "shape": list(t.shape),
            "dtype": str(t.dtype).replace("torch.", ""),
            "device": t.device.type,
            "requires_grad": bool(t.requires_grad),
            "is_parameter": isinstance(t, torch.nn.Parameter),
            "value": _plain(t),
        }

    buffers = dict(module.named_buffers())
    # named_buffers() skips buffers registered as None; _buffers keeps their names.
    for name, sub in module.named_modules():
        for key, value in getattr(sub, "_buffers", {}).items():
            full = f"{name}.{key}" if name else key
            if value is None:
                buffers[full] = None
    return {
        "parameters": {name: describe(p) for name, p in module.named_parameters()},
        "buffers": {name: describe(b) for name, b in buffers.items()},
        "state_dict": list(module.state_dict().keys()),
        "children": {name: type(child).__name__ for name, child in module.named_children()},
        "attrs": {name: _attr(module, name) for name in attrs},
    }


def _attr(module: torch.nn.Module, name: str) -> Any:
    if not hasattr(module, name):
        return {"missing": True}
    value = getattr(module, name)
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"value": value}
    if isinstance(value, torch.Tensor):
        return {"tensor": True, "is_parameter": isinstance(value, torch.nn.Parameter)}
    if isinstance(value, (tuple, list)) and all(isinstance(v, (int, float)) for v in value):
        return {"value": tuple(value), "type": type(value).__name__}
    if isinstance(value, torch.nn.Module):
        return {"module": type(value).__name__}
    return {"repr": repr(value)[:100], "type": type(value).__name__}


def _global_state() -> dict[str, str]:
    state = {
        "default dtype": str(torch.get_default_dtype()),
        "grad enabled": str(torch.is_grad_enabled()),
        "deterministic algorithms": str(torch.are_deterministic_algorithms_enabled()),
    }
    if hasattr(torch, "get_default_device"):
        state["default device"] = str(torch.get_default_device())
    return state


def _guard_content(protected: list[str]) -> None:
    """From here on, normkata cannot be imported and the content folders cannot be read."""
    roots = tuple(os.path.join(os.path.abspath(p), "") for p in protected)
    for name in [m for m in sys.modules if m == "normkata" or m.startswith("normkata.")]:
        del sys.modules[name]

    def audit(event: str, args: tuple) -> None:
        if event == "import" and str(args[0]).split(".")[0] == "normkata":
            raise ImportError("normkata cannot be imported by a kata submission")
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.abspath(os.fsdecode(args[0]))
            if path.startswith(roots):
                raise PermissionError(f"{path} is not readable by a kata submission")

    sys.addaudithook(audit)


def main() -> None:
    request_fd, reply_fd = int(sys.argv[1]), int(sys.argv[2])
    _receive, _send = receive, send  # kept: the normkata modules leave sys.modules at load
    session = _Session()
    _send(reply_fd, {"ready": True, "torch": str(torch.__version__), "cuda": torch.cuda.is_available()})
    while True:
        request = _receive(request_fd)
        op = request.get("op")
        if op == "load":
            _send(reply_fd, session.load(request))
        elif op == "run":
            _send(reply_fd, session.run(request["program"]))
        else:
            break


if __name__ == "__main__":
    main()
