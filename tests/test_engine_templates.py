"""The engine templates in docs/templates (Slurm, Kubernetes, GitHub Actions): each parses, and
every `normkata` command in them, comments included, is a real command whose options exist. CI
runs the test suite, so this is CI's check of the templates."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from click.testing import CliRunner

from normkata.cli import cli as main
from tests.test_docs_commands import command_path

TEMPLATES = Path(__file__).resolve().parents[1] / "docs" / "templates"
SHELL, KUBERNETES, ACTIONS = TEMPLATES / "slurm.sh", TEMPLATES / "k8s-job.yaml", TEMPLATES / "github-actions.yml"
#: `normkata` and what follows it on its line, up to where the shell's command (or a comment's
#: code span) ends.
_INVOCATION = re.compile(r"(?<![\w/.-])normkata((?:[ \t]+[^\s|;&#`]+)*)")


def invocations(text: str) -> list[list[str]]:
    """The words after each `normkata` in `text` (continuation lines joined), where a word
    follows it: `normkata` ending a sentence is prose."""
    joined = text.replace("\\\n", " ")
    return [words for found in _INVOCATION.finditer(joined) if (words := found.group(1).split())]


def strings_of(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings_of(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings_of(value)


def template_commands(path: Path) -> list[list[str]]:
    """Every normkata command of a template: in YAML, those of its strings (as YAML joins folded
    lines) and of its comments; in the shell script, of every line."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".sh":
        return invocations(text)
    comments = "\n".join(line for line in text.splitlines() if line.lstrip().startswith("#"))
    return invocations(comments) + [words for s in strings_of(yaml.safe_load(text)) for words in invocations(s)]


def resolve(words: list[str]) -> tuple[tuple[str, ...], click.Command]:
    path = command_path(words)
    assert path, f"normkata {' '.join(words)}: no such command"
    command: click.Command = main
    context = click.Context(main, info_name="normkata")
    for word in path:
        assert isinstance(command, click.Group)
        found = command.get_command(context, word)
        assert found is not None
        command = found
    return path, command


@pytest.mark.parametrize("template", [SHELL, KUBERNETES, ACTIONS], ids=lambda p: p.name)
def test_every_normkata_command_in_a_template_is_real(template: Path) -> None:
    commands = template_commands(template)
    assert commands, f"{template.name} runs no normkata command"
    runner = CliRunner()
    for words in commands:
        path, command = resolve(words)
        result = runner.invoke(main, [*path, "--help"])
        assert result.exit_code == 0, (template.name, path, result.output)
        known = {option for param in command.params for option in param.opts}
        for word in words[len(path) :]:
            if word.startswith("-") and not word.startswith("-$"):
                option = word.split("=", 1)[0].strip("\"'")
                assert option in known, f"{template.name}: normkata {' '.join(path)} has no option {option}"


def test_every_template_shards_and_merges_the_class() -> None:
    """Each engine grades with --shard auto and the same seed, and something merges the shards."""
    for template in (SHELL, KUBERNETES, ACTIONS):
        commands = [" ".join(words) for words in template_commands(template)]
        grading = [c for c in commands if c.startswith("grade-all")]
        assert any("--shard auto" in c and "--seed" in c for c in grading), template.name
        assert any(c.startswith("gradebook merge") for c in commands), template.name


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_the_slurm_script_is_valid_bash_with_a_contiguous_array() -> None:
    assert subprocess.run(["bash", "-n", str(SHELL)], capture_output=True).returncode == 0
    text = SHELL.read_text(encoding="utf-8")
    assert re.search(r"^#SBATCH --array=0-\d+$", text, re.MULTILINE), "--shard auto needs a contiguous range"


def test_the_kubernetes_job_is_indexed_and_names_its_count() -> None:
    job = yaml.safe_load(KUBERNETES.read_text(encoding="utf-8"))
    assert job["kind"] == "Job" and job["spec"]["completionMode"] == "Indexed"
    container = job["spec"]["template"]["spec"]["containers"][0]
    env = {item["name"]: item.get("value") for item in container["env"]}
    assert env["NORMKATA_SHARD_COUNT"] == str(job["spec"]["completions"])  # Kubernetes does not pass it
    run = next(item for item in container["env"] if item["name"] == "NORMKATA_RUN_ID")  # one id for the Job's shards
    assert run["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.labels['batch.kubernetes.io/controller-uid']"
    key = next(m for m in container["volumeMounts"] if m["name"] == "key")
    assert key["mountPath"].startswith(env["NORMKATA_HOME"] + "/")  # inside the folder the sandbox protects


def test_the_actions_matrix_sets_the_shard_convention() -> None:
    workflow = yaml.safe_load(ACTIONS.read_text(encoding="utf-8"))
    grade = workflow["jobs"]["grade"]
    shards = grade["strategy"]["matrix"]["shard"]
    assert shards == list(range(len(shards)))  # 0-based, as NORMKATA_SHARD_INDEX counts
    assert grade["env"] == {
        "NORMKATA_SHARD_INDEX": "${{ matrix.shard }}",
        "NORMKATA_SHARD_COUNT": "${{ strategy.job-total }}",
    }
    assert workflow["jobs"]["merge"]["needs"] == "grade"
