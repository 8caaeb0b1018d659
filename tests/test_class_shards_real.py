"""A class of 24 rmsnorm submissions graded for real, once whole and once as 3 shards with the same
seed: the merged gradebook is the unsharded one, every failing row names its reason, identical
files score the same, and the Gradescope path (`grade --format gradescope --seed`) agrees.

Slow (two gradings of 24 files on the project's two shared cores): cases get 1-second timeouts.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from normkata.grading.fixtures import kata_fixtures
from normkata.paths import katas_dir
from tests.conftest import invoke

SEED = "20260901"
FIXTURES = katas_dir() / "rmsnorm" / "fixtures"
BUFFER_EPS = """import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.register_buffer("eps", torch.tensor(eps))
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps.float())
        return h.to(x.dtype) * self.weight
"""
HANG = BUFFER_EPS.replace("        h = x.float()\n", "        while True:\n            pass\n")
CRASH = BUFFER_EPS.replace(
    '        self.register_buffer("eps", torch.tensor(eps))\n', "        import os\n        os._exit(3)\n"
)


def a_class_of_24(root: Path) -> Path:
    root.mkdir()
    mutants = {f.name: f.source for f in kata_fixtures("rmsnorm") if f.name.startswith("buggy_")}
    assert len(mutants) == 12
    files = {f"m_{name.removeprefix('buggy_')}.py": source for name, source in mutants.items()}
    llama = (FIXTURES / "correct_llama_style.py").read_text()
    files |= {
        "alice.py": llama,
        "dan.py": llama,  # the same file as alice's
        "bob.py": (FIXTURES / "correct_cs336_style.py").read_text(),
        "twin.py": mutants["buggy_eps_outside_sqrt"],  # the same bug, the same file
        "syntax.py": "import torch\n\nclass RMSNorm(torch.nn.Module:\n    pass\n",
        "importer.py": "raise ValueError('boom')\n",
        "buffer_eps.py": BUFFER_EPS,
        "hang.py": HANG,
        "crash.py": CRASH,
        "erin.py": llama,  # and a folder erin/: two submissions of one name
    }
    for name, source in files.items():
        (root / name).write_text(source)
    for folder, source in {
        "carol": (FIXTURES / "correct_sqrt_divide.py").read_text(),
        "erin": mutants["buggy_no_keepdim"],
    }.items():
        (root / folder).mkdir()
        (root / folder / "rmsnorm.py").write_text(source)
    assert len(list(root.iterdir())) == 24
    return root


def rows(out: Path) -> dict[str, dict[str, str]]:
    lines = (out / "gradebook.csv").read_text(encoding="utf-8").splitlines()
    return {r["submission"]: r for r in csv.DictReader(lines)}


def without_time(folder: Path) -> dict[str, object]:
    """The reports, with the one thing two runs may differ in (the time taken) left out."""
    found: dict[str, object] = {}
    for path in sorted((folder / "reports").iterdir()):
        if path.suffix == ".json":
            found[path.name] = {k: v for k, v in json.loads(path.read_text()).items() if k != "duration_s"}
        else:
            found[path.name] = re.sub(r"·\s+[\d.]+\s*s\n", "\n", path.read_text())  # wrapped or not
    return found


@pytest.mark.slow
def test_24_submissions_whole_and_in_3_shards(runner, tmp_path: Path) -> None:
    folder = a_class_of_24(tmp_path / "class")
    common = ["--seed", SEED, "--timeout", "1", "--run", "r1"]
    whole = tmp_path / "whole"
    result = invoke(runner, ["grade-all", "rmsnorm", str(folder), "--out", str(whole), "--jobs", "2", *common])
    assert result.exit_code == 1, result.output
    shards = [tmp_path / f"shard-{k}" for k in (1, 2, 3)]
    for k, out in enumerate(shards, start=1):
        done = invoke(runner, ["grade-all", "rmsnorm", str(folder), "--out", str(out), "--shard", f"{k}/3", *common])
        assert done.exit_code in (0, 1), done.output
    assert sum(len(rows(out)) for out in shards) == 24 and all(rows(out) for out in shards)
    merged = tmp_path / "merged"
    assert invoke(runner, ["gradebook", "merge", *map(str, shards), "--out", str(merged)]).exit_code == 0

    graded = rows(whole)
    assert len(graded) == 24
    untimed = {name: {k: v for k, v in row.items() if k != "duration_s"} for name, row in graded.items()}
    assert {name: {k: v for k, v in row.items() if k != "duration_s"} for name, row in rows(merged).items()} == untimed
    assert without_time(merged) == without_time(whole)

    assert {row["seed"] for row in graded.values()} == {SEED}
    assert len({row["max_score"] for row in graded.values()}) == 1  # the syntax error's row too
    failing = {name: row for name, row in graded.items() if row["passed"] != "true"}
    assert sorted(set(graded) - set(failing)) == ["alice", "bob", "carol", "dan", "erin.py"]
    assert all(row["reason"] for row in failing.values()), failing  # every failing row says why
    assert graded["syntax"]["reason"] == "syntax error at line 3" and graded["syntax"]["score"] == "0"
    assert graded["importer"]["reason"].startswith("IMPORT ERROR in rmsnorm.py line 1: ValueError: boom")
    assert graded["m_uses_torch_rms_norm"]["reason"].startswith("forbidden API `")
    assert "rms_norm`" in graded["m_uses_torch_rms_norm"]["reason"]
    assert graded["hang"]["reason"].startswith("timed out (")
    assert graded["crash"]["reason"].startswith("crashed (")
    assert graded["m_eps_outside_sqrt"]["reason"] == "eps added outside the square root"
    assert (
        graded["erin.py"]["note"] == graded["erin/"]["note"] == "erin/, erin.py share the name erin: graded as "
        "separate rows"
    )
    for first, second in (("alice", "dan"), ("m_eps_outside_sqrt", "twin"), ("alice", "erin.py")):
        same = ("passed", "score", "max_score", "reason", "misconceptions", "sha256")
        assert [graded[first][k] for k in same] == [graded[second][k] for k in same]

    # A buffer eps is told to keep eps out of the state_dict, not to rename the gain.
    report = json.loads((whole / "reports" / f"{graded['buffer_eps']['report']}.json").read_text())
    messages = " ".join(case["message"] for case in report["cases"])
    assert "should not be in the state_dict" in messages and "name the gain" not in messages

    # The Gradescope path grades a file as grade-all does with the same seed.
    gradescope = tmp_path / "results.json"
    invoke(
        runner,
        [
            "grade",
            "rmsnorm",
            "--file",
            str(folder / "twin.py"),
            "--seed",
            SEED,
            "--timeout",
            "1",
            "--format",
            "gradescope",
            "--output",
            str(gradescope),
        ],
    )
    payload = json.loads(gradescope.read_text())
    assert payload["extra_data"]["seed"] == int(SEED) and payload["score"] == float(graded["twin"]["score"])
