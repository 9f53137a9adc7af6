"""A judge's answer on one input: whether it fails, what was expected, what came back, and how they differ."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dedup_harness.core.memory_gauge import MemoryGauge, TracedMemory
from dedup_harness.core.write_watch import TempFolder, WriteWatch

Inputs = dict[str, Any]  # the documents as Doc objects and the options (B, a text to split, a spool's ending)
SHOWN_DIFFERENCES = 5  # a message names this many differences, then counts the rest


@dataclass
class Verdict:
    """``expected`` and ``got`` are plain data for the reports; ``differences`` one plain sentence each."""

    failing: bool
    expected: dict[str, Any] = field(default_factory=dict)
    got: dict[str, Any] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)

    def message(self) -> str:
        """The differences in one paragraph, as the check's assertion says them."""
        shown = self.differences[:SHOWN_DIFFERENCES]
        more = len(self.differences) - len(shown)
        return "; ".join(shown) + (f"; and {more} more" if more else "")


class VerdictFailed(AssertionError):
    """A check's failing verdict, raised by the check: the verdict travels with it as data, its message for people.

    The outcome recorder writes the verdict beside the case (``core/outcome_recorder.py``), and the
    grader's feedback, shrinker and reports read that, never the message.
    """

    def __init__(self, failed: Verdict) -> None:
        super().__init__(failed.message())
        self.verdict = failed


def verdict(expected: dict[str, Any], got: dict[str, Any], differences: list[str]) -> Verdict:
    """A verdict that fails exactly when there are differences."""
    return Verdict(bool(differences), expected, got, differences)


@dataclass(frozen=True)
class Subject:
    """What a judge puts to the test: the implementation, where its spools may go, how its memory is read.

    ``impl`` has the module's surface (STATS_KEYS, paragraphs, paragraph_hash, bloom_rate, exact_dedup):
    the module itself in-process, the grader's proxy to an isolated worker otherwise. ``scratch`` is a
    folder both sides can see, for the spool folders a judge hands the stage. ``memory`` measures the
    stage's memory around a block: tracemalloc in-process, the worker's resident memory in the grader.
    ``writes`` watches where the stage may write besides its spool_dir, given the scratch folder: the
    temp folder ``tempfile`` picks in-process, the worker's home and its session in the grader.
    ``own_filter``: the implementation runs with a ``corpus.bloom`` of its author's own (``check`` on a
    student's own modules), not the course's, so no judge may expect the course's filter's exact answers.
    """

    impl: Any
    scratch: Path
    memory: Callable[[], MemoryGauge] = TracedMemory
    own_filter: bool = False
    writes: Callable[[Path], WriteWatch] = TempFolder
