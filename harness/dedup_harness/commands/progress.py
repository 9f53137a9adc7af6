"""The one progress display of every long command, always on stderr.

On a terminal: a rich bar (a spinner with a running count when the total is unknown) that goes away
when the work ends. Off a terminal (a CI log, a pipe): plain lines, because a log keeps every
redraw: one line when a phase starts, one per finished item that has a name, and for anonymous
counts a line at most every ``LOG_EVERY`` seconds plus the last count. ``quiet`` shows nothing.

Counting is cheap: ``advance`` adds to a number here, and the display hears of it at most
``REFRESH`` times a second, so a loop over millions of documents pays almost nothing for it.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

LOG_EVERY = 10.0  # seconds between two lines of an anonymous count, off a terminal
# Display updates per second, at most. rich redraws from a thread of its own whether the count moved
# or not (1.4 ms a redraw of this bar): 10 a second cost 2.1-2.4 % of a core, 2 a second 0.5 %
# (benchmarks/README.md, issue 16: progress should cost under 1 % of a run).
REFRESH = 2
_CHECK_EVERY = 1024  # advances between two looks at the clock


class Progress:
    """Progress of one command: phases, each counting items towards an optional total."""

    def __init__(self, label: str, *, quiet: bool = False, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.console = Console(file=self.stream)
        self.bar: RichProgress | None = None
        self.task: TaskID | None = None
        self.description = ""
        self.done = 0
        self.total: int | None = None
        self.unit = ""
        self._pending = 0
        self._shown_at = 0.0
        self._logged_at = time.monotonic()  # the first count line comes LOG_EVERY seconds in

    def __enter__(self) -> Progress:
        if not self.quiet and self.console.is_terminal:
            self.bar = RichProgress(
                SpinnerColumn(),
                TextColumn(self.label),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.description}"),
                console=self.console,
                transient=True,
                refresh_per_second=REFRESH,
            )
            self.bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is None:
            self._end_phase()
        if self.bar is not None:
            self.bar.stop()

    def phase(self, description: str, *, total: int | None = None, unit: str = "") -> None:
        """A new phase, its count from zero. ``unit`` names what an anonymous count counts (for the log)."""
        self._end_phase()
        self.description, self.total, self.unit = description, total, unit
        self.done = self._pending = 0
        if self.bar is not None:
            if self.task is not None:
                self.bar.remove_task(self.task)
            self.task = self.bar.add_task(description, total=total)
        elif not self.quiet:
            self._line(description + (f" ({total} {unit})".replace(" )", ")") if total is not None else ""))

    def advance(self, steps: int = 1) -> None:
        """Count ``steps`` more: shown now and then, never per step."""
        self._pending += steps
        if self._pending >= _CHECK_EVERY or self.total is not None:
            self._refresh()

    def finished(self, note: str) -> None:
        """One named item finished (a target, a submission): a step, and off a terminal a line of its own."""
        self._pending += 1
        self._refresh(force=True)
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, description=note)
        elif not self.quiet:
            count = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
            self._line(f"[{count}] {note}")

    def set_count(self, done: int, total: int | None = None) -> None:
        """The phase's count as another program keeps it (mutmut's own counter)."""
        self._pending = 0
        self.done = done
        if total is not None:
            self.total = total
        self._refresh()

    def _refresh(self, *, force: bool = False) -> None:
        self.done += self._pending
        self._pending = 0
        now = time.monotonic()
        if not force and now - self._shown_at < 1 / REFRESH:
            return
        self._shown_at = now
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, completed=self.done, total=self.total)
        elif self.unit and not self.quiet and now - self._logged_at >= LOG_EVERY:
            self._logged_at = now
            self._count_line()

    def _end_phase(self) -> None:
        """The last count of an anonymous phase goes to the log (a bar shows it already)."""
        self.done += self._pending
        self._pending = 0
        if self.bar is None and self.unit and not self.quiet and self.description:
            self._count_line()

    def _count_line(self) -> None:
        self._line(f"{self.description}: {self.done:,} {self.unit}")

    def _line(self, text: str) -> None:
        print(f"{self.label}: {text}", file=self.stream, flush=True)
