"""The class page (index.html) and each report's page: what grade-all and gradebook merge write for
a teacher's browser, checked as HTML and, where Chromium is installed, in a real headless browser
(the test is skipped cleanly without one; CI need not have it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import invoke
from tests.test_class_shards import fake, grade  # noqa: F401 (fake: the class grader fixture)
from tests.test_grade_all import a_class

HOSTILE = '<img src=x onerror="document.title=1">'
CHROMIUM = next(
    (shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)), None
)


def a_class_of_four(root: Path) -> Path:
    """Right, wrong (the eps mistake), a syntax error and a forbidden call; and a hostile name."""
    folder = a_class(root, right="pass", wrong="eps")
    (folder / "syntaxer.py").write_text("# syntaxer syntax\nclass RMSNorm(:\n")
    (folder / "copier.py").write_text("# copier forbid\nimport torch.nn.functional as F\nF.rms_norm\n")
    (folder / f"{HOSTILE}.py").write_text("# hostile pass\n")
    return folder


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.tags: list[str] = []
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name == "href" and value:
                self.links.append(value)
            if name == "src" and value:
                self.sources.append(value)


def parsed(path: Path) -> Links:
    links = Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


def test_the_class_page_links_every_report_and_keeps_names_as_text(runner, fake, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "grades"
    assert grade(runner, a_class_of_four(tmp_path / "class"), out, "--seed", "7").exit_code == 1
    index = out / "index.html"
    page = index.read_text(encoding="utf-8")
    links = parsed(index)
    assert "img" not in links.tags and not links.sources  # the hostile name is text, nothing is fetched
    assert "&lt;img src=x onerror=&quot;document.title=1&quot;&gt;" in page
    assert len(links.links) == 5 and all((out / link).is_file() for link in links.links)
    for name in ("right", "wrong", "syntaxer", "copier"):
        assert f'<a href="reports/{name}.html">{name}</a>' in page
    assert "forbidden API used" in page and "eps added outside the square root" in page  # most common mistakes
    assert re.search(r"<svg[^>]*>.*</svg>", page)  # the histogram
    copier = (out / "reports" / "copier.html").read_text(encoding="utf-8")
    assert "<tr><th>score</th><td>0 / 1</td></tr>" in copier and '<a href="../index.html">' in copier


def test_merge_writes_the_same_class_page(runner, fake, tmp_path: Path) -> None:  # noqa: F811
    folder = a_class_of_four(tmp_path / "class")
    whole = tmp_path / "whole"
    assert grade(runner, folder, whole, "--seed", "7", "--run", "r1", "--format", "prairielearn").exit_code == 1
    shards = [tmp_path / f"s{k}" for k in (1, 2)]
    for k, out in enumerate(shards, start=1):
        grade(runner, folder, out, "--seed", "7", "--shard", f"{k}/2", "--run", "r1")
    args = ["gradebook", "merge", *map(str, shards), "--out", str(tmp_path / "merged"), "--format", "prairielearn"]
    assert invoke(runner, args).exit_code == 0
    written = sorted(str(p.relative_to(whole)) for p in (whole / "prairielearn").rglob("results.json"))
    assert len(written) == 5  # every graded submission, the syntax error's (gradable: false) too
    pages = [f"reports/{p.name}" for p in (whole / "reports").glob("*.html")]
    for name in ["index.html", *pages, *written]:
        assert (tmp_path / "merged" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name


def chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
    ]
    return subprocess.run([CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.slow  # starts a browser
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_the_class_page_in_a_headless_browser(runner, fake, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "grades"
    grade(runner, a_class_of_four(tmp_path / "class"), out, "--seed", "7")
    index = out / "index.html"
    dom = chromium("--dump-dom", index.as_uri(), profile=tmp_path / "profile-1").stdout
    assert dom.count("<tr><td data-sort=") == 5 and "<img" not in dom  # rendered, the name still text
    assert "<title>rmsnorm: the class</title>" in dom  # no script from a name ran (it would set the title)
    for link in re.findall(r'<a href="([^"]+)">', dom):
        report = chromium("--dump-dom", (out / link).as_uri(), profile=tmp_path / "profile-2").stdout
        assert "<h1>rmsnorm" in report, link
    # Sort by score, highest first, with the page's own script: click the header twice.
    sorted_page = out / "sorted.html"
    clicks = "<script>var h=document.querySelectorAll('th.sortable')[2];h.click();h.click();</script></body>"
    sorted_page.write_text(index.read_text(encoding="utf-8").replace("</body>", clicks), encoding="utf-8")
    dom = chromium("--dump-dom", sorted_page.as_uri(), profile=tmp_path / "profile-3").stdout
    order = re.findall(r'<tr><td data-sort="([^"]+)">', dom)
    assert order[:2] == sorted(order[:2]) and set(order[:2]) == {
        "right",
        "&lt;img src=x onerror=&quot;document.title=1&quot;&gt;",
    }
    assert order[-1] in ("copier", "syntaxer", "wrong")
    shot = tmp_path / "page.png"
    chromium(f"--screenshot={shot}", "--window-size=1200,900", index.as_uri(), profile=tmp_path / "profile-4")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    os.environ.get("NORMKATA_KEEP_SCREENSHOT") and shutil.copy(shot, os.environ["NORMKATA_KEEP_SCREENSHOT"])
