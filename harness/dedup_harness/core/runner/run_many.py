"""Run the suite against many implementation roots in parallel, each in a child of one warm fork server."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from pathlib import Path

from dedup_harness.core import profiles, scratch_dirs, signals
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.paths import SUITE_DIR
from dedup_harness.core.runner.args import OUTCOMES_NAME, pytest_args
from dedup_harness.core.runner.fork_server import (
    child_cpu_seconds,
    child_output,
    kill_child,
    start_child,
    start_fork_server,
)
from dedup_harness.core.runner.result import SuiteResult, read_result
from dedup_harness.core.runner.run_one import child_env

OnDone = Callable[[int, SuiteResult], None]


@dataclass
class _Running:
    root: Path
    process: BaseProcess
    scratch: scratch_dirs.Scratch  # the child's working folder: what the code under test wrote lands here
    started: float

    @property
    def outcomes_file(self) -> Path:
        return Path(self.scratch.name) / OUTCOMES_NAME


def run_suites(
    roots: Sequence[Path],
    *,
    jobs: int | None = None,
    timeout: float = 300.0,
    check_timeout: float = 60.0,
    profile: str = profiles.CI,
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    suite_dir: Path = SUITE_DIR,
    checks: Sequence[str] = CHECKS,
    on_done: OnDone | None = None,
    write_bytecode: bool = False,
) -> list[SuiteResult]:
    """Run the checks against every root, ``jobs`` at a time, each in its own forked process.

    ``write_bytecode`` lets the children cache the suite's assertion-rewritten modules (in the suite's
    ``__pycache__``), so the second and later children skip rewriting them. Leave it off for roots
    that must stay untouched (a submission's folder).

    Results come back in the order of ``roots``; ``on_done(index, result)`` hears of each as it finishes.
    """
    context = start_fork_server()
    changes = child_env(env, profile, write_bytecode)
    waiting = list(enumerate(roots))
    running: dict[int, _Running] = {}
    results: dict[int, SuiteResult] = {}
    limit = max(1, jobs or os.cpu_count() or 1)
    # A finished run's scratch is removed by a helper thread, so the next run starts without waiting for
    # the disk (about 80 entries a run, pytest's tmp_path folders: 10 to 150 ms each on a disk that
    # discards freed blocks, the more the busier it is); every removal is done before this returns.
    with ThreadPoolExecutor(1, thread_name_prefix="run-scratch") as remover:
        try:
            while waiting or running:
                while waiting and len(running) < limit:
                    index, root = waiting.pop(0)
                    with signals.deferred():  # a signal now would orphan the child: it waits until it is registered
                        scratch = scratch_dirs.Scratch("run")
                        outcomes_file = Path(scratch.name) / OUTCOMES_NAME
                        args = pytest_args(
                            root, outcomes_file, check_timeout=check_timeout, extra=extra_args, suite_dir=suite_dir
                        )
                        process = start_child(context, args, scratch.name, changes, write_bytecode)
                        running[index] = _Running(root, process, scratch, time.monotonic())
                        signals.track(process.pid or 0)
                _reap(running, results, remover, timeout=timeout, checks=checks, on_done=on_done)
        finally:
            for run in running.values():  # interrupted: nothing may outlive the parent
                kill_child(run.process)
                signals.untrack(run.process.pid or 0)
                run.scratch.cleanup()
    return [results[index] for index in range(len(roots))]


def _reap(
    running: dict[int, _Running],
    results: dict[int, SuiteResult],
    remover: Executor,
    *,
    timeout: float,
    checks: Sequence[str],
    on_done: OnDone | None,
) -> None:
    """Wait until a child ends or the earliest deadline passes; collect what ended, kill what overran."""
    deadline = min(run.started for run in running.values()) + timeout
    wait([run.process.sentinel for run in running.values()], timeout=max(0.0, deadline - time.monotonic()))
    now = time.monotonic()
    for index, run in list(running.items()):
        overran = now - run.started >= timeout
        if run.process.exitcode is None and not overran:
            continue
        kill_child(run.process)  # whatever the run left running in its session goes too
        signals.untrack(run.process.pid or 0)
        output = child_output(run.scratch.name)
        result = read_result(
            run.root, run.outcomes_file, timed_out=overran, output=output, seconds=now - run.started, checks=checks
        )
        result.cpu_seconds = child_cpu_seconds(run.scratch.name)
        remover.submit(run.scratch.cleanup)
        del running[index]
        results[index] = result
        if on_done is not None:
            on_done(index, result)
