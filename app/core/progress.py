"""What a long command is doing, while it does it: one helper for every command and the server's start-up sync.

    with Progress() as progress:
        tick = progress.step("rendering", total=len(docs), unit="cards")
        html = render_handbook(docs, on_card=tick)
    print(progress.summary(f"wrote {file} ({len(docs)} cards)"))   # "wrote … (889 cards) in 37.2 s"

Exports, imports and syncs run for seconds to minutes. On a terminal each step is a rich bar on stderr
(removed when the command ends); anywhere else (a pipe, a log, ``make run``, CI) a step prints a plain line
such as ``rendering 12/889 cards (4 s)`` at most every ``PROOFDECK_PROGRESS_INTERVAL`` seconds (2; 0 prints
one line per item: what the tests use), so a log shows progress without a line per card. A step whose
size is unknown (``total=None``) prints its name once when it starts. The command then prints one summary
line with its counts and the time it took. The server hands its logger in (``emit=``): no bar, plain lines.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import Any, TypeVar

T = TypeVar("T")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def seconds(elapsed: float) -> str:
    """``0.4 s``, ``12.3 s``, ``2 min 05 s``."""
    if elapsed < 60:
        return f"{elapsed:.1f} s"
    minutes, rest = divmod(round(elapsed), 60)
    return f"{minutes} min {rest:02d} s"


class Progress:
    """The steps of one command (see the module docstring); use it as a context manager."""

    def __init__(self, *, emit: Callable[[str], None] | None = None, interval: float | None = None,
                 bar: bool | None = None) -> None:
        if interval is None:
            from app.core.config import settings

            interval = settings.PROGRESS_INTERVAL
        self.interval = interval
        self.bar = (emit is None and sys.stderr.isatty()) if bar is None else bar
        self._emit = emit or _stderr
        self.started = self._last = time.monotonic()
        self.label, self.unit, self.done, self.note = "", "", 0, ""
        self.total: int | None = None
        self._rich: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if self.bar:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as Bars

            self._rich = Bars(SpinnerColumn(finished_text="✓"), TextColumn("{task.description}"), BarColumn(),
                              MofNCompleteColumn(), TextColumn("{task.fields[unit]}"), TimeElapsedColumn(),
                              console=Console(stderr=True), transient=True)
            self._rich.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._rich is not None:
            self._rich.stop()
            self._rich = None

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def step(self, label: str, total: int | None = None, unit: str = "") -> Callable[[], None]:
        """Start the next step (the previous one is done); returns its tick, to call once per item."""
        self._finish_task()
        self.label, self.unit, self.total, self.done, self.note = label, unit, total, 0, ""
        if self._rich is not None:
            self._task = self._rich.add_task(label, total=total, unit=unit)
        elif total is None:
            self._emit(f"{label} …")
        return self.advance

    def each(self, label: str, items: Sequence[T], unit: str = "") -> Iterator[T]:
        """``items``, as a step that ticks once each item's loop body is done."""
        tick = self.step(label, total=len(items), unit=unit)
        for item in items:
            yield item
            tick()

    def advance(self, n: int = 1, note: str = "") -> None:
        """``n`` more items done; ``note``: what is being done now (``N=4 zero3``), shown after the count."""
        self.done += n
        self.note = note or self.note
        if self._rich is not None:
            self._rich.update(self._task, advance=n,
                              description=f"{self.label}: {self.note}" if self.note else self.label)
            return
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._emit(self.line())

    def line(self) -> str:
        """The plain progress line: ``rendering 12/889 cards (4 s)``, ``sweep 5 steps (31 s): N=4 zero2``."""
        count = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
        unit = f" {self.unit}" if self.unit else ""
        note = f": {self.note}" if self.note else ""
        return f"{self.label} {count}{unit} ({self.elapsed:.0f} s){note}"

    def summary(self, text: str) -> str:
        """The command's last line: ``text in 12.3 s``."""
        return f"{text} in {seconds(self.elapsed)}"

    def _finish_task(self) -> None:
        if self._rich is not None and self._task is not None:
            end = self.total if self.total is not None else max(self.done, 1)
            self._rich.update(self._task, total=end, completed=end)
