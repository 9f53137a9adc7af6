"""Batches: grade many submissions in parallel, split a batch into shards, join the shards again.

Each grade runs in its own processes (the suite, and the worker when isolated), so a thread per
core is enough to keep the cores busy. A shard is every n-th submission of the batch in sorted name
order: the same list on every machine gives the same split, and the shards are balanced.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from dedup_harness.grading import GradeReport, GradingOptions, grade, unrunnable
from dedup_harness.reports.csv_report import read
from dedup_harness.runner import start_fork_server

_SHARD = re.compile(r"^(\d+)/(\d+)$")


class ShardError(ValueError):
    """A ``--shard`` value or a set of shard files that does not make sense: the message says why."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def select(self, names: Sequence[str]) -> list[str]:
        return sorted(names)[self.index - 1 :: self.count]


ALL = Shard(1, 1)


def parse_shard(text: str) -> Shard:
    match = _SHARD.match(text.strip())
    if not match:
        raise ShardError(f"--shard {text!r}: expected i/n, e.g. 2/8")
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= index <= count:
        raise ShardError(f"--shard {text!r}: i must lie between 1 and n")
    return Shard(index, count)


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def grade_batch(
    submissions: Sequence[str],
    options: GradingOptions,
    *,
    jobs: int,
    grader: Callable[[Path, GradingOptions, str], GradeReport] | None = None,
) -> list[GradeReport]:
    """Grade every submission (a path as given), ``jobs`` at a time; reports in name order.

    Each suite run is a child of one warm fork server, started here, unless ``grader`` is given.
    """
    fork = start_fork_server() if grader is None and submissions else None
    chosen = grader or (lambda path, opts, name: grade(path, opts, name=name, fork=fork))

    def run(path: Path, opts: GradingOptions, name: str) -> GradeReport:
        try:
            return chosen(path, opts, name)
        except Exception as exc:  # a grader bug must not stop the batch: this submission is a harness error
            return unrunnable(name, opts, [], harness_error=f"{type(exc).__name__}: {exc}")

    reports: list[GradeReport] = []
    console = Console(stderr=True)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool, _progress(console, len(submissions)) as tick:
        futures = {pool.submit(run, Path(name), options, name): name for name in submissions}
        for future in as_completed(futures):
            report = future.result()
            reports.append(report)
            tick(report)
    return sorted(reports, key=lambda r: r.submission)


class _progress:
    """A progress bar on a terminal; a line per finished submission in a log (CI has no terminal)."""

    def __init__(self, console: Console, total: int) -> None:
        self.console, self.total, self.done = console, total, 0
        self.bar: Progress | None = None

    def __enter__(self) -> Callable[[GradeReport], None]:
        if self.console.is_terminal:
            self.bar = Progress(
                TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=self.console
            )
            self.task = self.bar.add_task("grading", total=self.total)
            self.bar.start()
        return self.tick

    def tick(self, report: GradeReport) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.advance(self.task)
        else:
            line = f"[{self.done}/{self.total}] {report.submission}: {report.score:g}/{report.max_score:g}"
            print(line, file=sys.stderr, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def merge_rows(paths: Sequence[Path]) -> tuple[list[dict[str, str]], list[str]]:
    """The rows of every shard file, checked to form one batch; and the notes on what was seen."""
    rows: list[dict[str, str]] = []
    empty_files = 0
    for path in paths:
        shard_rows = read(path)
        empty_files += not shard_rows
        rows += shard_rows
    shards = {row["shard"] for row in rows}
    parsed = {parse_shard(s) for s in shards}
    counts = {s.count for s in parsed}
    if len(counts) > 1:
        raise ShardError(f"the shards come from different splits: {sorted(shards)}")
    names = [row["submission"] for row in rows]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ShardError(f"submissions graded in more than one shard (a shard given twice?): {repeated[:5]}")
    notes = []
    if counts:
        count = counts.pop()
        missing = sorted(set(range(1, count + 1)) - {s.index for s in parsed})
        if len(missing) > empty_files:
            raise ShardError(f"shards missing: {', '.join(f'{i}/{count}' for i in missing)}")
        notes.append(f"{len(paths)} shard files, {len(rows)} submissions, split {count} ways")
    return sorted(rows, key=lambda r: r["submission"]), notes
