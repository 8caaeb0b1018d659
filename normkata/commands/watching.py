"""`normkata watch`: re-grade a kata file on every save, through a warm grader.

Three sources feed one queue that the main thread serves in order: file events (watchfiles,
on the file's folder, so editors that save by writing a new file and renaming it are seen),
keys (one keystroke on a terminal, one line per key otherwise) and a slow probe that notices
a file changing without any event (a filesystem that sends none: `--manual` is the way there).
Saves that arrive while a grade runs are coalesced into one re-grade; a save that leaves the
content unchanged grades nothing. Grading, keeping, hints, the solution and the next kata are
the learner's loop (normkata.loop.learner): this module only watches and presents.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import select
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from normkata.errors import InputError
from normkata.files import open_file
from normkata.grading.errors import GraderError
from normkata.i18n import t

if TYPE_CHECKING:
    from rich.console import Console

    from normkata.content.katas import Kata
    from normkata.loop.learner import Learner

#: Milliseconds watchfiles waits for a burst of events to settle (an editor's save is a burst).
DEBOUNCE_MS = 30
#: A file that changed with no event for this long means the filesystem sends none.
SILENT_CHANGE_S = 3.0


@dataclass
class Event:
    kind: str  # change | key | silent
    key: str = ""


@dataclass
class WatchSettings:
    lang: str
    device: str
    timeout: float
    jsonl: bool
    manual: bool


class Watcher:
    """The watch loop: one kata file at a time, graded through the learner's warm grading service."""

    def __init__(self, kata: Kata, file: Path, settings: WatchSettings, learner: Learner, console: Console) -> None:
        self.kata, self.file, self.settings = kata, file, settings
        self.learner, self.console = learner, console
        self.events: queue.Queue[Event] = queue.Queue()
        self.stop = threading.Event()  # the whole watch
        self.watching = threading.Event()  # set: the file watcher of the current file stops
        self.last_digest: str | None = None
        self.last_event_at = time.monotonic()
        #: `s` before a pass asked to confirm giving up: the next key answers (y shows the solution).
        self.confirming = False

    # -- the loop ------------------------------------------------------------------------------

    def run(self) -> None:
        lang = self.settings.lang
        with _keys(self.events, self.stop) as interactive:
            self._start_watching()
            self._say(t("watch.start", lang, file=self.file, kata=self.kata.id))
            if interactive or not self.settings.jsonl:
                self._say(t("watch.keys", lang))
            self.grade(force=True)
            while not self.stop.is_set():
                try:
                    event = self.events.get(timeout=0.5)
                except queue.Empty:
                    continue
                if event.kind == "change":
                    self._drain_changes()
                    self.grade()
                elif event.kind == "silent":
                    self._say(t("watch.silent", lang, file=self.file.name))
                elif event.kind == "key" and not self.on_key(event.key):
                    break
        self.watching.set()

    def _start_watching(self) -> None:
        if not self.settings.manual:
            threading.Thread(target=self._watch_files, daemon=True, name="normkata-watch-files").start()
            threading.Thread(target=self._probe, daemon=True, name="normkata-watch-probe").start()

    def _watch_files(self) -> None:
        from watchfiles import watch

        name = self.file.name
        stop = self.watching
        for _changes in watch(
            self.file.parent,
            watch_filter=lambda _change, path: Path(path).name == name,
            debounce=DEBOUNCE_MS,
            step=10,
            stop_event=stop,
            raise_interrupt=False,
        ):
            self.last_event_at = time.monotonic()
            self.events.put(Event("change"))

    def _probe(self) -> None:
        """Tell once when the file changes and no event says so (NFS, some container mounts)."""
        seen, stop = _stamp(self.file), self.watching
        while not stop.wait(1.0):
            now = _stamp(self.file)
            if now != seen and time.monotonic() - self.last_event_at > SILENT_CHANGE_S:
                if now == _stamp(self.file) and _digest(self.file) != self.last_digest:
                    self.events.put(Event("silent"))
                    return
            if now != seen:
                seen = now

    def _drain_changes(self) -> None:
        """Saves made while grading are one change: keep the keys, drop the repeats."""
        keys = []
        with contextlib.suppress(queue.Empty):
            while True:
                event = self.events.get_nowait()
                if event.kind != "change":
                    keys.append(event)
        for event in keys:
            self.events.put(event)

    # -- grading -------------------------------------------------------------------------------

    def grade(self, force: bool = False) -> None:
        lang = self.settings.lang
        digest = _wait_for(self.file)
        if digest is None:
            if self.file.is_symlink():  # replaced by a link while watched: never followed
                self._say(t("workspace.link", lang, path=self.file), style="warn")
            else:
                self._say(t("watch.missing", lang, file=self.file))
            return
        if digest == self.last_digest and not force:
            return
        self.last_digest = digest
        try:
            kept = self.learner.grade_file(
                self.kata, self.file, device=self.settings.device, timeout=self.settings.timeout
            )
        except (GraderError, InputError) as error:
            self._say(str(error), style="warn")
            return
        if self.settings.jsonl:
            sys.stdout.write(json.dumps(kept.result.to_json(), ensure_ascii=False) + "\n")
            sys.stdout.flush()
            return
        from normkata.commands.kept import print_kept

        self.console.print(f"[muted]{time.strftime('%H:%M:%S')}[/]")
        print_kept(self.console, kept, lang, compact=True)
        if kept.result.passed:
            self._say(t("watch.passed", lang, kata=self.kata.id))

    # -- keys ----------------------------------------------------------------------------------

    def on_key(self, key: str) -> bool:
        """Act on a key; False to stop watching."""
        actions: dict[str, Callable[[], None]] = {
            "h": self._hint,
            "n": self._next_kata,
            "l": self._list,
            "s": self._solution,
            "r": lambda: self.grade(force=True),
        }
        if self.confirming:  # the answer to "give up and see the solution?": that key does nothing else
            self.confirming = False
            if key == "y":
                self.learner.solution(self.kata.id, give_up=True)  # recorded as giving up
                self._show_solution()
            else:
                self._say(t("solution.kept", self.settings.lang))
            return True
        if key == "q":
            return False
        action = actions.get(key)
        if action is not None:
            action()
        return True

    def _hint(self) -> None:
        from normkata.actions import Action, spoken
        from normkata.workbench.workflow import Passed

        lang = self.settings.lang
        _kata, shown, _none_left = self.learner.hint(self.kata.id)
        if isinstance(shown, Passed):
            solution = spoken(Action.of("solution", kata=self.kata.id), lang)
            self._say(t("hint.passed", lang, kata=self.kata.id, solution=solution), style="kata.pass")
            return
        for hint in shown:
            self._say(hint.heading(self.kata.id, lang), style="heading")
            self._say(hint.text)

    def _next_kata(self) -> None:
        """The next kata's instructions, and its file watched from now on: graded at its first save
        (an untouched starter is not a grade of anything the learner wrote)."""
        from rich.markdown import Markdown

        try:
            following = self.learner.following(self.kata.id)
        except InputError as error:  # its file is a link, say: said, and the watch stays on this kata
            self._say(str(error), style="warn")
            return
        if following.started is not None and following.started.written:
            self._say(t("kata.written", self.settings.lang, path=following.file))
        self.watching.set()  # the file watcher follows the old file: start one for the new file
        self.watching = threading.Event()
        self.kata, self.file = following.kata, following.file
        self.last_digest = _digest(self.file)
        self.console.print(Markdown(following.text))  # as `normkata kata NAME` shows them
        self._start_watching()
        self._say(t("watch.start", self.settings.lang, file=self.file, kata=self.kata.id))

    def _list(self) -> None:
        for kata, status in self.learner.katas(strict=False):
            mark = "→" if kata.id == self.kata.id else " "
            label = t(f"kata.status.{status.status}", self.settings.lang)
            self._say(f"{mark} {kata.id:<20} {label}")

    def _solution(self) -> None:
        """As `normkata solution`: after a pass, the reference and your file beside it; before one,
        only once you confirm giving up (y), which is recorded."""
        if not self.learner.solution_open(self.kata.id):
            self.confirming = True
            self._say(t("watch.solution_confirm", self.settings.lang, kata=self.kata.id), style="warn")
            return
        self._show_solution()

    def _show_solution(self) -> None:
        from normkata.workbench.showing import show_solution

        with self.learner.bench() as bench:
            show_solution(self.console, bench, self.kata, self.settings.lang, self.file)

    def _say(self, message: str, style: str = "muted") -> None:
        from rich.markup import escape

        self.console.print(f"[{style}]{escape(message)}[/]")


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def _digest(path: Path) -> str | None:
    """sha256 of the file, read in blocks: a huge file costs time, never memory (the grade refuses it).
    None when it is not there, or not a regular file: a link is not followed, a FIFO never waited on."""
    hasher = hashlib.sha256()
    try:
        fd = open_file(path)  # Refused (an OSError): a link, a FIFO, a file of /proc
    except OSError:
        return None
    with os.fdopen(fd, "rb") as stream:
        try:
            while block := stream.read(1 << 20):
                hasher.update(block)
        except OSError:
            return None
    return hasher.hexdigest()


def _wait_for(path: Path, seconds: float = 1.0) -> str | None:
    """The file's digest; an editor that saves by delete-and-rename leaves a short gap."""
    deadline = time.monotonic() + seconds
    while (digest := _digest(path)) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return digest


@contextlib.contextmanager
def _keys(events: queue.Queue[Event], stop: threading.Event) -> Iterator[bool]:
    """Feed keys into `events`: keystrokes on a terminal (yields True), else one per line."""
    stream = sys.stdin
    interactive = stream is not None and stream.isatty()
    saved = None
    if interactive:
        import termios
        import tty

        fd = stream.fileno()
        saved = termios.tcgetattr(fd)
        tty.setcbreak(fd)
    reader = threading.Thread(target=_read_keys, args=(events, stop, interactive), daemon=True, name="normkata-keys")
    reader.start()
    try:
        yield interactive
    finally:
        stop.set()
        if saved is not None:
            import termios

            termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, saved)


def _read_keys(events: queue.Queue[Event], stop: threading.Event, interactive: bool) -> None:
    fd = sys.stdin.fileno() if sys.stdin is not None else -1
    if fd < 0:
        return
    while not stop.is_set():
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        data = os.read(fd, 1 if interactive else 4096)
        if not data:
            if interactive:  # Ctrl-D on a terminal ends the session, as q does
                events.put(Event("key", "q"))
            return  # piped input that ends leaves the watch running (scripts stop it with q or a signal)
        # A keystroke on a terminal; a line per key from a pipe.
        typed = [data.decode("latin-1")] if interactive else data.decode("utf-8", "replace").splitlines()
        for text in typed:
            key = text.strip()[:1].lower()
            if key:  # on_key decides: any key answers `s`'s confirmation; one it has no action for does nothing
                events.put(Event("key", key))
