"""A warm grader forks the next grade's worker as soon as a verdict is written (a spare): warmed up,
unconfined and idle until the grade that takes it tells it where it is confined. The learner's
code then runs in that very process, confined as every worker is, and it serves one grade only.
"""

from __future__ import annotations

import re
from pathlib import Path

from normkata.grading.client import Grader
from normkata.grading.sandbox import descendants

#: Tells the test which process ran it, and whether it could read what no submission may.
_REPORTS_ITS_PROCESS = """
import os
import torch


class RMSNorm(torch.nn.Module):
    def __init__(self, hidden_size, eps=1e-6, device=None, dtype=None):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        try:
            open({protected!r}).read()
            readable = "read"
        except OSError:
            readable = "refused"
        raise RuntimeError(f"pid={{os.getpid()}} cwd={{os.getcwd()}} protected={{readable}}")
"""


def _pid_and_state(message: str) -> tuple[int, str, str]:
    found = re.search(r"pid=(\d+) cwd=(\S+) protected=(\w+)", message)
    assert found, message
    return int(found.group(1)), found.group(2), found.group(3)


def test_the_spare_runs_the_next_grade_confined_and_is_replaced(grading_service: Grader, tmp_path: Path) -> None:
    learner = tmp_path / "rmsnorm.py"
    # The service's progress folder is denied to every grade's worker: to the spare as well.
    home = Path(grading_service.extra_env["NORMKATA_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    secret = home / "secret.txt"
    secret.write_text("the learner's progress\n")
    learner.write_text(_REPORTS_ITS_PROCESS.format(protected=str(secret)), encoding="utf-8")
    assert grading_service.pid is not None

    seen = []
    for _ in range(2):
        before = grading_service.processes()
        spares = set(before) - _helpers(grading_service, before)
        assert len(spares) == 1, before  # the zygote, its resource tracker and one spare
        result = grading_service.grade("rmsnorm", learner, seed=3)
        messages = [case.message for case in result.cases if "pid=" in case.message]
        assert messages, [case.message for case in result.cases]
        pid, cwd, readable = _pid_and_state(messages[0])
        assert pid in spares, "the grade did not run in the spare forked ahead of it"
        assert readable == "refused", "the spare was not confined"
        assert "normkata-scratch-" in cwd, cwd  # moved to its grade's scratch folder when confined
        seen.append(pid)
        assert pid not in descendants(grading_service.pid), "a used worker outlived its grade"
        assert pid not in grading_service.processes()
    assert seen[0] != seen[1], "a worker served two grades"


def _helpers(grader: Grader, pids: list[int]) -> set[int]:
    """The pids of the zygote and its resource tracker: the runner's children among `pids`."""
    assert grader.pid is not None
    return {pid for pid in pids if _parent(pid) == grader.pid}


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])
