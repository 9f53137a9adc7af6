"""A mutant mutmut did not kill, re-run against the whole selection, switched on the way mutmut switches it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from enum import StrEnum
from pathlib import Path

from dedup_harness.core import signals
from dedup_harness.mutation.mutmut_cli import MutationError
from dedup_harness.mutation.scratch import PYTEST_ARGS, SELECTION, child_env


class Rerun(StrEnum):
    PASSED = "passed"  # the whole selection passed: a survivor
    FAILED = "failed"  # some test failed: killed after all
    TIMEOUT = "timeout"
    ERROR = "error"  # pytest neither passed nor failed (usage or internal error)


def rerun_command() -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        *SELECTION,
        *PYTEST_ARGS,
        "--rootdir=.",
        "-x",
        "-q",
        "--no-header",
    ]


def rerun(scratch: Path, mutant: str, *, timeout: float) -> Rerun:
    """The whole selection against one mutant, switched on the way mutmut switches it."""
    start = lambda: subprocess.Popen(  # noqa: E731
        rerun_command(),
        cwd=scratch / "mutants",
        env=child_env(scratch, MUTANT_UNDER_TEST=mutant),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    with signals.tracked(start) as process:  # the main thread (calibrating) or a pool's: registered either way
        try:
            code = process.wait(timeout=timeout)  # a signal kills it (registered): whichever thread waits returns
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return Rerun.TIMEOUT
    return {0: Rerun.PASSED, 1: Rerun.FAILED}.get(code, Rerun.ERROR)


def calibrate(scratch: Path) -> float:
    """Prove the re-run can pass and can fail, and return how long a passing run takes."""
    started = time.monotonic()
    clean = rerun(scratch, "", timeout=1800)
    seconds = time.monotonic() - started
    if clean is not Rerun.PASSED:
        raise MutationError(f"the selection does not pass in the scratch copy without a mutant ({clean})")
    # mutmut's "fail" switch makes every mutated function raise: the re-run must see it.
    forced = rerun(scratch, "fail", timeout=max(60.0, 10 * seconds))
    if forced is not Rerun.FAILED:
        raise MutationError(f"the re-run cannot fail: with every function forced to raise it ended {forced}")
    return seconds
