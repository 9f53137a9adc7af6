"""How the suite measures the memory a stage uses while it runs: a gauge, entered around the run.

The check (docs/checks.md) that tells a spooling stage from one that holds the documents asks a gauge
for the peak growth of the memory the stage uses. In-process (verify, ``check``) that is tracemalloc's
peak over the block; the grader puts its own gauge in the stash (``MEMORY_GAUGE_KEY``), which reads
the isolated worker's peak resident memory from outside, where the submission cannot forge it.
("Probe" is the preflight's word: what it asks the worker to try.)
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from types import TracebackType
from typing import Protocol

import pytest


class MemoryGauge(Protocol):
    """A context manager; once it exits, ``figures`` holds what the block used, in bytes, by the name of each way
    the gauge measures it (empty: it could not measure). Two blocks are compared figure by figure.

    ``mark()`` says that now a stage holding the documents holds them all: a gauge that reads memory at
    moments (the grader's) reads it then too.
    """

    figures: dict[str, int]

    def __enter__(self) -> MemoryGauge: ...

    def mark(self) -> None: ...

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None: ...


MEMORY_GAUGE_KEY = pytest.StashKey[Callable[[], MemoryGauge]]()


class TracedMemory:
    """The peak of the memory Python allocated during the block, above what was allocated at its start (freed
    memory allocated again counts again: no slack hides from it)."""

    def __init__(self) -> None:
        self.figures: dict[str, int] = {}
        self._started_here = False
        self._base = 0

    def __enter__(self) -> TracedMemory:
        self._started_here = not tracemalloc.is_tracing()
        if self._started_here:
            tracemalloc.start()
        tracemalloc.reset_peak()
        self._base = tracemalloc.get_traced_memory()[0]
        return self

    def mark(self) -> None:
        """Nothing to read: tracemalloc keeps the peak of every allocation, freed memory reused or not."""

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.figures = {"allocated at the peak": tracemalloc.get_traced_memory()[1] - self._base}
        if self._started_here:
            tracemalloc.stop()
