"""Run the suite against one implementation root in its own pytest process, and read the outcomes.

The child writes per-check outcomes through the outcome recorder; the parent reads that JSON file,
never the child's printed text. A run that outlives its wall-time limit is killed with its whole
process group, and every check without an outcome is a ``timeout``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from multiprocessing.context import ForkServerContext
from pathlib import Path

from dedup_harness.core import profiles, scratch_dirs, signals
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.paths import SUITE_DIR
from dedup_harness.core.runner.args import OUTCOMES_NAME, pytest_args, suite_command
from dedup_harness.core.runner.fork_server import child_output, kill_child, start_child
from dedup_harness.core.runner.result import SuiteResult, read_result


def run_suite(
    root: Path,
    *,
    timeout: float = 300.0,
    check_timeout: float = 60.0,
    profile: str = profiles.CI,
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    suite_dir: Path = SUITE_DIR,
    checks: Sequence[str] = CHECKS,
    fork: ForkServerContext | None = None,
    write_bytecode: bool = False,
) -> SuiteResult:
    """Run the checks against ``root`` in a fresh pytest process (forked from ``fork``'s server when given).

    ``write_bytecode`` as for ``run_suites``: the suite's assertion-rewritten modules are cached, so
    the next run skips rewriting them. Leave it off when ``root`` must stay untouched.
    """
    started = time.monotonic()
    whole_env = {**os.environ, **child_env(env, profile, write_bytecode)}
    if write_bytecode:
        whole_env.pop("PYTHONDONTWRITEBYTECODE", None)
    with scratch_dirs.Scratch("run") as scratch:  # its working folder: what the code under test wrote lands here
        outcomes_file = Path(scratch) / OUTCOMES_NAME
        if fork is not None:
            args = pytest_args(root, outcomes_file, check_timeout=check_timeout, extra=extra_args, suite_dir=suite_dir)
            output, timed_out = _run_forked(fork, args, scratch, whole_env, timeout, write_bytecode)
        else:
            command = suite_command(
                root, outcomes_file, check_timeout=check_timeout, extra=extra_args, suite_dir=suite_dir
            )
            output, timed_out = _run_process(command, scratch, whole_env, timeout)
        return read_result(
            root, outcomes_file, timed_out=timed_out, output=output, seconds=time.monotonic() - started, checks=checks
        )


def child_env(env: Mapping[str, str] | None, profile: str, write_bytecode: bool) -> dict[str, str]:
    """The variables a suite run sets on top of the caller's environment.

    ``env``, the Hypothesis profile, and no plugins but those its arguments name: a plugin installed
    beside pytest (one that reorders or reseeds tests, say) must not change a verdict.
    """
    changes = {**(env or {}), profiles.PROFILE_ENV: profile, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    if not write_bytecode:
        changes["PYTHONDONTWRITEBYTECODE"] = "1"
    return changes


def _run_process(command: list[str], cwd: str, env: Mapping[str, str], timeout: float) -> tuple[str, bool]:
    """Run ``command`` to its end or its time limit; returns (its output, whether it was killed)."""
    start = lambda: subprocess.Popen(  # noqa: E731
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # so a timeout can kill everything the run started
    )
    with signals.tracked(start) as process:
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
        except BaseException:  # interrupted: the run goes with us
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
    timed_out = process.returncode is not None and process.returncode < 0
    return output.decode("utf-8", "replace"), timed_out


def _run_forked(
    context: ForkServerContext,
    args: list[str],
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    write_bytecode: bool,
) -> tuple[str, bool]:
    """pytest with ``args`` in a child of the fork server; returns (its output, whether it was killed)."""
    with signals.tracked(lambda: start_child(context, args, cwd, env, write_bytecode)) as process:
        try:
            process.join(timeout)
        finally:
            timed_out = process.exitcode is None
            kill_child(process)  # and whatever the run left running in its session
    return child_output(cwd), timed_out
