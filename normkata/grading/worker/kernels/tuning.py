"""`@triton.autotune` under the grader: every config it lists is graded, as a GPU might pick any.

Triton's autotuner benchmarks each config through the GPU driver before the first call with a
new key, then keeps the fastest; under the interpreter there is no driver, so a multi-config
autotune crashes (`0 active drivers`), and on a GPU which config wins depends on the card. A
kernel that is wrong under one config is wrong: the grader runs the launcher once per config
(`Pass.index`), each autotuned kernel taking its index-th config (its last when it has fewer),
so every config of every autotuned kernel is graded, and the report names the config.

Configs that differ only in what the interpreter ignores (num_warps, num_stages, num_ctas,
maxnreg) compute the same thing there: they are graded once. What a GPU's benchmark does
to memory is replayed once before the first call of each key: the kernel runs with the
autotuner's hooks (reset_to_zero, restore_value, a config's pre_hook) as `Autotuner._bench`
runs it, so a kernel that accumulates into its output without `reset_to_zero` is caught as on a
GPU. `prune_configs_by` is honoured (the pruned configs are the ones a GPU could pick).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from normkata.grading.worker.kernels.watch import active

#: Distinct configs graded per autotuned kernel at most (the first ones, in the order listed).
MAX_CONFIGS = 16


@dataclass
class Pass:
    """One run of the launcher: which config each autotuned kernel takes, and what it met."""

    index: int = 0
    #: kernel name -> (distinct configs it offers, the one taken in this pass as text)
    seen: dict[str, tuple[int, str]] = field(default_factory=dict)
    benchmarked: set[tuple[int, Any]] = field(default_factory=set)

    @property
    def configs(self) -> int:
        """How many passes grade every config met so far."""
        return max([count for count, _ in self.seen.values()] + [1])

    def label(self) -> str:
        """The configs of this pass, for the report: `_fwd: BLOCK_SIZE=16` ("" without autotune)."""
        return "; ".join(f"{name}: {taken}" for name, (count, taken) in self.seen.items() if count > 1)


_CURRENT: list[Pass] = []


@contextlib.contextmanager
def tuning_pass(index: int) -> Iterator[Pass]:
    current = Pass(index)
    _CURRENT.append(current)
    try:
        yield current
    finally:
        _CURRENT.remove(current)


def _signature(config: Any) -> tuple[Any, ...]:
    """What a config changes under the interpreter: its meta-parameters and its pre-hook."""
    return (tuple(sorted((str(k), repr(v)) for k, v in config.kwargs.items())), id(config.pre_hook))


def distinct_configs(configs: list[Any]) -> list[Any]:
    found: dict[tuple[Any, ...], Any] = {}
    for config in configs:
        found.setdefault(_signature(config), config)
    return list(found.values())[:MAX_CONFIGS]


def describe(config: Any) -> str:
    parts = [f"{k}={v}" for k, v in config.kwargs.items()]
    return ", ".join(parts) if parts else f"num_warps={config.num_warps}"


def install() -> None:
    """Replace `Autotuner.run` (once, process-wide) by the pass-driven choice."""
    from triton.runtime import autotuner

    if getattr(autotuner.Autotuner.run, "_normkata", False):
        return
    autotuner.Autotuner.run = _run


def _key(tuner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """The autotuner's own cache key: the values of its `key` arguments and every tensor's dtype."""
    named = {
        k: v for k, v in {**dict(zip(tuner.arg_names, args, strict=False)), **kwargs}.items() if k in tuner.arg_names
    }
    key: list[Any] = [named[k] for k in tuner.keys if k in named]
    key += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
    return tuple(key)


def _run(self: Any, *args: Any, **kwargs: Any) -> Any:
    current = _CURRENT[-1] if _CURRENT else Pass()
    self.nargs = dict(zip(self.arg_names, args, strict=False))
    configs = self.prune_configs(kwargs) if len(self.configs) > 1 else list(self.configs)
    choices = distinct_configs(configs)
    config = choices[min(current.index, len(choices) - 1)]
    name = getattr(self.base_fn, "__name__", "kernel")
    current.seen[name] = (len(choices), describe(config))
    full_nargs = {**self.nargs, **kwargs, **config.all_kwargs()}
    key = (id(self), _key(self, args, kwargs))
    if len(configs) > 1 and key not in current.benchmarked:
        current.benchmarked.add(key)
        _replay_benchmark(self, config, args, kwargs, full_nargs)
    self.best_config = config
    if config.pre_hook is not None:
        config.pre_hook(full_nargs)
    try:
        return self.fn.run(*args, **kwargs, **config.all_kwargs())
    finally:
        self.nargs = None


_run._normkata = True  # type: ignore[attr-defined]


def _replay_benchmark(
    tuner: Any, config: Any, args: tuple[Any, ...], kwargs: dict[str, Any], full_nargs: dict[str, Any]
) -> None:
    """One run as `Autotuner._bench` makes it (hooks included), then the reset it does after."""
    watch = active()
    if watch is not None:
        watch.quiet += 1
    try:
        if config.pre_hook:
            config.pre_hook(full_nargs)
        tuner.pre_hook(full_nargs)
        try:
            tuner.fn.run(*args, **kwargs, **config.all_kwargs())
        except Exception as exc:
            tuner.post_hook(full_nargs, exception=exc)
            raise
        tuner.post_hook(full_nargs, exception=None)
        tuner.pre_hook(full_nargs, reset_only=True)
    finally:
        if watch is not None:
            watch.quiet -= 1
