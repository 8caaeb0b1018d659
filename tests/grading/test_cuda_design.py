"""CUDA by design, tested where no GPU is: the zygote never touches CUDA (a CUDA context does
not survive a fork), each worker starts CUDA itself before it is confined, and the confinement
policy lets the NVIDIA device nodes through."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from normkata.grading import sandbox
from normkata.grading.launch import ZYGOTE_PRELOAD, runner_environment
from normkata.grading.worker import serve as worker


def test_the_policy_admits_nvidia_device_nodes(tmp_path: Path) -> None:
    dev = tmp_path / "dev"
    (dev / "nvidia-caps").mkdir(parents=True)
    for name in (
        "null",
        "zero",
        "urandom",
        "nvidia0",
        "nvidia1",
        "nvidiactl",
        "nvidia-uvm",
        "nvidia-uvm-tools",
        "sda",
        "kvm",
    ):
        (dev / name).touch()
    devices = sandbox.default_devices(dev)
    names = sorted(p.name for p in devices)
    assert names == [
        "null",
        "nvidia-caps",
        "nvidia-uvm",
        "nvidia-uvm-tools",
        "nvidia0",
        "nvidia1",
        "nvidiactl",
        "urandom",
        "zero",
    ]
    policy = sandbox.Policy(tmp_path / "scratch", devices=devices)
    assert (dev / "nvidiactl").resolve() in policy.devices and (dev / "sda").resolve() not in policy.devices


def test_without_nvidia_nodes_only_the_plain_devices(tmp_path: Path) -> None:
    (tmp_path / "null").touch()
    assert [p.name for p in sandbox.default_devices(tmp_path)] == ["null"]


_NO_CUDA_IN_PRELOAD = """
import json, sys
import torch, torch.cuda
calls = []
def spy(name):
    def called(*args, **kwargs):
        calls.append(name)
        raise RuntimeError(f"the zygote called torch.cuda.{name}")
    return called
for name in ("is_available", "init", "_lazy_init", "device_count", "current_device", "get_device_properties",
             "set_device", "synchronize", "mem_get_info", "is_initialized"):
    setattr(torch.cuda, name, spy(name))
for name in ("_cuda_init", "_cuda_getDeviceCount"):
    if hasattr(torch._C, name):
        setattr(torch._C, name, spy(name))
import importlib
for module in sys.argv[1:]:
    importlib.import_module(module)
print(json.dumps(calls))
"""


def test_the_zygote_preload_never_calls_into_cuda(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-s", "-c", _NO_CUDA_IN_PRELOAD, *ZYGOTE_PRELOAD],
        capture_output=True,
        text=True,
        env=runner_environment(),
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_a_worker_starts_cuda_during_warm_up_when_there_is_a_gpu(monkeypatch) -> None:
    warmed: list[str] = []
    monkeypatch.setattr(worker, "_warm_up_on", warmed.append)
    monkeypatch.setattr(worker.torch.cuda, "is_available", lambda: True)
    worker._warm_up()
    assert warmed == ["cpu", "cuda"]
    monkeypatch.setattr(worker.torch.cuda, "is_available", lambda: False)
    warmed.clear()
    worker._warm_up()
    assert warmed == ["cpu"]


def test_warm_up_comes_before_confinement_in_the_worker() -> None:
    import inspect

    body = inspect.getsource(worker.serve)
    assert body.index("_warm_up()") < body.index("_confine(")
