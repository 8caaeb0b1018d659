"""examples/notebook.ipynb executed as Jupyter executes it: nbclient, a real IPython kernel. Its
`%%kata rmsnorm` cells are graded in normkata's confined worker and recorded; the learner's code
never runs in the kernel (a file it would write is not there, a torch patched in the kernel does
not change a verdict); `%unload_ext normkata` stops the grading service."""

from __future__ import annotations

import json
import os
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import invoke

pytestmark = [pytest.mark.extra("notebook"), pytest.mark.slow]

EXAMPLE = Path(__file__).parents[1] / "examples" / "notebook.ipynb"
#: What the kernel's children are, read from inside it (Linux: the grading service is one).
CHILDREN = (
    "import glob, os\n"
    "print(sorted(p for f in glob.glob(f'/proc/{os.getpid()}/task/*/children') for p in open(f).read().split()))"
)


def plain(text: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", "", text)).split())


def shown(cell: Any, kind: str) -> str:
    """What a cell's outputs hold of one MIME type (or of its stdout, `stream`), as one line of words."""
    texts = []
    for output in cell.outputs:
        if kind == "stream" and output.output_type == "stream":
            texts.append(output.text)
        elif output.output_type in ("display_data", "execute_result") and kind in output.data:
            texts.append(output.data[kind])
    return plain("\n".join(texts))


@pytest.fixture
def jupyter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Jupyter's and IPython's own files in the test's folder; the kernel starts there."""
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "jupyter-runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    return notebooks


def test_the_example_notebook_grades_in_the_worker_and_records_both_cells(
    runner, jupyter: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    import nbformat
    from nbclient import NotebookClient
    from nbformat.v4 import new_code_cell

    notebook = nbformat.read(EXAMPLE, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=300,  # a cell; the first %%kata starts the grading service (torch and pytest imported)
        startup_timeout=120,  # the kernel, on a machine as busy as the test suite makes it
        kernel_name="python3",
        resources={"metadata": {"path": str(jupyter)}},
    )

    def run(source: str) -> Any:
        cell = new_code_cell(source)
        notebook.cells.append(cell)
        return client.execute_cell(cell, len(notebook.cells) - 1)

    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            client.execute_cell(cell, index)  # a cell that raises raises here (CellExecutionError)
        graded = [cell for cell in notebook.cells if cell.source.startswith("%%kata rmsnorm")]
        assert len(graded) == 2
        first, second = graded
        assert shown(first, "stream").startswith("Starting the grader")
        html = shown(first, "text/html")
        assert "Recognised mistake: eps added outside the square root" in html
        assert "Hint: Use x * rsqrt(mean(x²) + eps): eps belongs inside the root." in html and "NOT YET" in html
        assert "Recognised mistake: eps added outside the square root" in shown(first, "text/plain")
        assert "PASSED: 45 of 45 cases pass." in shown(second, "text/html") and not shown(second, "stream")
        assert not [
            o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs if o.output_type == "error"
        ]
        exported = tmp_path / "progress.json"
        assert invoke(runner, ["progress", "export", str(exported)]).exit_code == 0
        attempts = json.loads(exported.read_text())["tables"]["kata_attempts"]
        assert [(a["kata"], bool(a["passed"])) for a in attempts] == [("rmsnorm", False), ("rmsnorm", True)]

        # The learner's code ran in the worker only: the kernel has no RMSNorm and never imported torch.
        assert (
            shown(run("import sys\nprint('RMSNorm' in globals(), 'torch' in sys.modules)"), "stream") == "False False"
        )
        body = second.source.split("\n", 1)[1]  # the correct RMSNorm, after its magic's line
        writes = run(f"%%kata rmsnorm\nopen('written_by_the_cell.txt', 'w').write('this ran in the kernel')\n{body}")
        assert "PASSED: 45 of 45 cases pass." in shown(writes, "text/plain")  # it ran, in the worker's scratch
        assert "written_by_the_cell.txt" not in {p.name for p in tmp_path.rglob("*")}
        # torch patched in the kernel to call every output close: the verdict is the worker's.
        run(
            "import torch\n"
            "torch.allclose = lambda *args, **kwargs: True\n"
            "torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(a, dtype=torch.bool)\n"
            "torch.testing.assert_close = lambda *args, **kwargs: None"
        )
        patched = run(graded[0].source)
        assert "NOT YET" in shown(patched, "text/plain")
        assert "Recognised mistake: eps added outside the square root" in shown(patched, "text/html")

        # %unload_ext stops the grading service: the kernel's child process is gone.
        before = set(json.loads(shown(run(CHILDREN), "stream").replace("'", '"')))
        run("%unload_ext normkata")
        after = set(json.loads(shown(run(CHILDREN), "stream").replace("'", '"')))
        assert before - after and not after - before
        assert not any(os.path.exists(f"/proc/{pid}") and _alive(pid) for pid in before - after)


def _alive(pid: str) -> bool:
    """Not a zombie: /proc's state letter for a reaped-but-unwaited process is Z."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False
