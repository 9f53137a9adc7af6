"""`dedup-harness dedup` against a plain script on 200,000 documents, and what its progress display costs.

The plain script is ``plain_dedup.py``: json.loads a line, a set of paragraph texts, json.dumps out, the
stage's paragraph split, so its output is byte for byte the command's. The command runs the external
stage by default; ``stage_run.py`` runs it in its child through ``cli.main`` after its imports, as
``command`` (``-q``), ``command-log`` (progress lines on a stderr that is not a terminal),
``command-bar`` (rich's bar, as on a terminal), ``command-bare`` (``-q`` with the progress display
replaced by no-ops) and ``command-reference`` (``--reference -q``). A round runs each once, in an order
rotated each round; the best of the rounds goes into the ratio table.

The progress display's cost is also timed alone, in this process: the command's own counting
(``_counted`` around every input line, ``advance`` after every output document) over the corpus's lines
against the same loops without it. On a shared machine the difference between two whole runs of 10 s or
more swings by more than the 1% the goal allows; the cost timed alone does not.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROUNDS, best, record, run_rounds

from dedup_harness.commands import dedup as command
from dedup_harness.commands.progress import Progress

DOCS = 200_000
TARGETS = ("plain", "command", "command-log", "command-bar", "command-bare", "command-reference")


def test_command_against_plain(benchmark: Any, docs_corpus: Callable[[int], Path], tmp_path: Path) -> None:
    corpus = docs_corpus(DOCS)
    runs = run_rounds(benchmark, TARGETS, corpus, tmp_path, ROUNDS)
    paragraphs = runs["command"][0]["stats"]["paragraphs"]
    for which, found in runs.items():
        measured = best(found, paragraphs)
        benchmark.extra_info[which] = measured
        record(f"command:{which}:{DOCS}", docs=DOCS, **measured)


def test_progress_counting_alone(
    benchmark: Any, docs_corpus: Callable[[int], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command's two counting loops over the corpus's lines, with and without the display (best of 5).

    Modes: ``quiet`` (-q), ``log`` (lines on a stderr that is not a terminal), ``bar`` (rich's bar, as on
    a terminal, drawn to /dev/null). The bar also redraws from a thread of its own, ``REFRESH`` times a
    second, whether the count moved or not: what that thread costs is timed with the main thread asleep.
    """
    with open(docs_corpus(DOCS), "rb") as corpus:
        lines = corpus.readlines()

    def bare() -> None:
        for _ in iter(lines):
            pass
        for _ in lines:
            pass

    def counted(mode: str) -> Callable[[], None]:
        def loops() -> None:
            with _display(mode, monkeypatch) as progress:
                progress.phase("spooling", unit="documents read")
                for _ in command._counted(iter(lines), progress):
                    pass
                progress.phase("writing", unit="documents written")
                for _ in lines:  # one advance per document written: an upper bound, some are dropped
                    progress.advance()

        return loops

    loops = {"bare": bare, **{mode: counted(mode) for mode in ("quiet", "log", "bar")}}
    timed: dict[str, list[float]] = {name: [] for name in loops}

    def one_round() -> None:
        for name, loop in loops.items():
            start = time.process_time()
            loop()
            timed[name].append(time.process_time() - start)

    benchmark.pedantic(one_round, rounds=5, iterations=1)
    least = {name: min(seconds) for name, seconds in timed.items()}
    with _display("bar", monkeypatch) as progress:
        progress.phase("spooling", unit="documents read")
        start = time.process_time()
        time.sleep(IDLE_SECONDS)
        idle = (time.process_time() - start) / IDLE_SECONDS
    benchmark.extra_info.update(least, bar_idle_cpu_per_second=idle)
    record(
        f"progress:alone:{DOCS}",
        docs=len(lines),
        bar_idle_cpu_per_second=idle,
        **{f"{mode}_seconds": least[mode] - least["bare"] for mode in ("quiet", "log", "bar")},
        **{f"{name}_loops_seconds": s for name, s in least.items()},
    )


IDLE_SECONDS = 5.0


@contextlib.contextmanager
def _display(mode: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Progress]:
    """The command's ``Progress`` as it is made in ``mode``, drawing to /dev/null."""
    with monkeypatch.context() as env, open(os.devnull, "w") as log:
        if mode == "bar":
            env.setenv("TTY_COMPATIBLE", "1")  # rich's console takes the stream for a terminal
        with Progress("dedup", quiet=mode == "quiet", stream=log) as progress:
            yield progress
