"""A batch: grade many submissions in parallel, one thread per core, reports in name order.

Each grade runs in its own processes (the suite, and the worker), so a thread per core is enough to
keep the cores busy. Splitting a batch over machines is ``shards``' job.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import as_completed
from multiprocessing.context import ForkServerContext
from pathlib import Path

from dedup_harness.core.runner import start_fork_server
from dedup_harness.core.signals import thread_pool
from dedup_harness.grade.grader import GradingOptions, grade, unrunnable
from dedup_harness.grade.reports.model import GradeReport

Grader = Callable[[Path, GradingOptions, str], GradeReport]


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def grade_batch(
    submissions: Sequence[str],
    options: GradingOptions,
    *,
    jobs: int,
    grader: Grader | None = None,
    on_done: Callable[[GradeReport], None] | None = None,
    fork: ForkServerContext | None = None,
) -> list[GradeReport]:
    """Grade every submission (a path as given), ``jobs`` at a time; reports in name order.

    Each suite run is a child of one warm fork server (``fork``, or one started here), unless
    ``grader`` is given. ``on_done`` hears of each report as it is ready.
    """
    if fork is None and grader is None and submissions:
        fork = start_fork_server()
    chosen = grader or (lambda path, opts, name: grade(path, opts, name=name, fork=fork))

    def run(path: Path, opts: GradingOptions, name: str) -> GradeReport:
        try:
            return chosen(path, opts, name)
        except Exception as exc:  # a grader bug must not stop the batch: this submission is a harness error
            return unrunnable(name, opts, [], harness_error=f"{type(exc).__name__}: {exc}")

    reports: list[GradeReport] = []
    with thread_pool(jobs) as pool:  # interrupted: the submissions not started are dropped
        futures = {pool.submit(run, Path(name), options, name): name for name in submissions}
        for future in as_completed(futures):
            report = future.result()
            reports.append(report)
            if on_done is not None:
                on_done(report)
    return sorted(reports, key=lambda r: r.submission)
