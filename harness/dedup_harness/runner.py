"""Run the suite against implementation roots, each in its own pytest process, and read the outcomes.

The child writes per-check outcomes through the ``dedup_harness.outcomes`` plugin; the parent reads
that JSON file, never the child's printed text. A run that outlives its wall-time limit is killed
with its whole process group, and every check without an outcome is a ``timeout``.

``run_suite`` starts one fresh interpreter (pytest, with Hypothesis imported first). ``run_suites`` runs many roots in
parallel and pays the interpreter's start once: a fork server that has imported pytest, Hypothesis
and the harness forks one child per root, and only that child imports the root's ``corpus``.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import multiprocessing.forkserver
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from dedup_harness.checks import CHECKS
from dedup_harness.outcome import PRECEDENCE, Outcome
from dedup_harness.paths import SUITE_DIR

# What the fork server imports once for every child (see dedup_harness.warmup).
PRELOAD = ("dedup_harness.warmup",)
# What a run leaves in its scratch folder: the outcomes plugin's file, (a forked run) pytest's output
# and the child's CPU time, and pytest's base temp folder.
OUTCOMES_NAME = "outcomes.json"
LOG_NAME = "pytest.log"
CPU_NAME = "cpu_seconds"
BASETEMP_NAME = "tmp"
# run_suite's child: pytest, with Hypothesis imported first. pytest assertion-rewrites every module of
# a plugin's distribution, and with bytecode writes off it would compile all of Hypothesis on every
# run (about a second); imported first, Hypothesis is left as it is (pytest_args silences the warning).
BOOT = "import sys, hypothesis, pytest; sys.exit(pytest.main())"


@dataclass
class SuiteResult:
    """The outcome of every check for one implementation root."""

    root: Path
    outcomes: dict[str, Outcome]
    cases: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    collection_errors: list[str] = field(default_factory=list)
    exitstatus: int | None = None
    seconds: float = 0.0
    output_tail: str = ""  # the last lines pytest printed, for a person reading a broken run
    cpu_seconds: float | None = None  # the run's own CPU time, when the runner measured it (run_suites does)

    def failed(self) -> frozenset[str]:
        return frozenset(name for name, outcome in self.outcomes.items() if outcome is Outcome.FAILED)


def fold(cases: Sequence[Mapping[str, Any]]) -> Outcome:
    """One outcome for a check from the outcomes of its cases."""
    seen = {Outcome(case["outcome"]) for case in cases}
    return next((outcome for outcome in PRECEDENCE if outcome in seen), Outcome.ERROR)


def pytest_args(
    root: Path,
    outcomes_file: Path,
    *,
    check_timeout: float,
    extra: Sequence[str] = (),
    suite_dir: Path = SUITE_DIR,
) -> list[str]:
    """pytest's arguments for one run of the suite in ``suite_dir`` against ``root``."""
    return [
        str(suite_dir),
        f"--impl={root}",
        "-p",
        "dedup_harness.outcomes",
        f"--outcomes-json={outcomes_file}",
        f"--check-timeout={check_timeout}",
        # The suite's own settings, whatever ini file lies around the working directory.
        "-c",
        os.devnull,
        f"--rootdir={suite_dir.parent}",
        # No conftest.py from the folders above the suite's (wherever it is installed), and no
        # walk through them when collecting.
        f"--confcutdir={suite_dir.parent}",
        "-p",
        "no:cacheprovider",
        # tmp_path under the run's own scratch folder: a forked child ends with os._exit, so pytest's
        # numbered folders under the system temp would keep their lock files and pile up, and every
        # later run would scan them all.
        f"--basetemp={outcomes_file.parent / BASETEMP_NAME}",
        "-q",
        "--no-header",
        "-rN",
        # Hypothesis (see BOOT), or a fork server's harness, is imported before pytest could rewrite it.
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        *extra,
    ]


def suite_command(
    root: Path,
    outcomes_file: Path,
    *,
    check_timeout: float,
    extra: Sequence[str] = (),
    suite_dir: Path = SUITE_DIR,
) -> list[str]:
    args = pytest_args(root, outcomes_file, check_timeout=check_timeout, extra=extra, suite_dir=suite_dir)
    return [sys.executable, "-c", BOOT, *args]


def read_result(
    root: Path,
    outcomes_file: Path,
    *,
    timed_out: bool,
    output: str,
    seconds: float,
    checks: Sequence[str] = CHECKS,
) -> SuiteResult:
    """The SuiteResult from the plugin's JSON file (absent when the run died or was killed)."""
    data = json.loads(outcomes_file.read_text(encoding="utf-8")) if outcomes_file.exists() else {}
    cases: dict[str, list[dict[str, Any]]] = data.get("checks", {})
    missing = Outcome.TIMEOUT if timed_out else Outcome.ERROR
    return SuiteResult(
        root=root,
        outcomes={name: fold(cases[name]) if name in cases else missing for name in checks},
        cases=cases,
        collection_errors=data.get("collection_errors", []),
        exitstatus=data.get("exitstatus"),
        seconds=seconds,
        output_tail="\n".join(output.splitlines()[-30:]),
    )


def run_suite(
    root: Path,
    *,
    timeout: float = 300.0,
    check_timeout: float = 60.0,
    profile: str = "ci",
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    suite_dir: Path = SUITE_DIR,
    checks: Sequence[str] = CHECKS,
    fork: multiprocessing.context.ForkServerContext | None = None,
    write_bytecode: bool = False,
) -> SuiteResult:
    """Run the checks against ``root`` in a fresh pytest process (forked from ``fork``'s server when given).

    ``write_bytecode`` as for ``run_suites``: the suite's assertion-rewritten modules are cached, so
    the next run skips rewriting them. Leave it off when ``root`` must stay untouched.
    """
    started = time.monotonic()
    child_env = {**os.environ, **_child_env(env, profile, write_bytecode)}
    if write_bytecode:
        child_env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="dedup-harness-run-") as scratch:
        outcomes_file = Path(scratch) / OUTCOMES_NAME
        if fork is not None:
            args = pytest_args(root, outcomes_file, check_timeout=check_timeout, extra=extra_args, suite_dir=suite_dir)
            output, timed_out = _run_forked(fork, args, scratch, child_env, timeout, write_bytecode)
        else:
            command = suite_command(
                root, outcomes_file, check_timeout=check_timeout, extra=extra_args, suite_dir=suite_dir
            )
            output, timed_out = _run_process(command, scratch, child_env, timeout)
        return read_result(
            root, outcomes_file, timed_out=timed_out, output=output, seconds=time.monotonic() - started, checks=checks
        )


def _child_env(env: Mapping[str, str] | None, profile: str, write_bytecode: bool) -> dict[str, str]:
    """The variables a suite run sets on top of the caller's environment.

    ``env``, the Hypothesis profile, and no plugins but those its arguments name: a plugin installed
    beside pytest (one that reorders or reseeds tests, say) must not change a verdict.
    """
    child_env = {**(env or {}), "DEDUP_HARNESS_PROFILE": profile, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    if not write_bytecode:
        child_env["PYTHONDONTWRITEBYTECODE"] = "1"
    return child_env


def _run_process(command: list[str], cwd: str, env: Mapping[str, str], timeout: float) -> tuple[str, bool]:
    """Run ``command`` to its end or its time limit; returns (its output, whether it was killed)."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # so a timeout can kill everything the run started
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    timed_out = process.returncode is not None and process.returncode < 0
    return output.decode("utf-8", "replace"), timed_out


def _run_forked(
    context: multiprocessing.context.ForkServerContext,
    args: list[str],
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    write_bytecode: bool,
) -> tuple[str, bool]:
    """pytest with ``args`` in a child of the fork server; returns (its output, whether it was killed)."""
    process = _start_child(context, args, cwd, env, write_bytecode)
    process.join(timeout)
    timed_out = process.exitcode is None
    _kill(process)  # and whatever the run left running in its session
    return _child_output(cwd), timed_out


def _start_child(
    context: multiprocessing.context.ForkServerContext,
    args: Sequence[str],
    cwd: str,
    env: Mapping[str, str],
    write_bytecode: bool,
) -> multiprocessing.process.BaseProcess:
    """A child of the fork server running pytest with ``args`` in ``cwd``, its output going to LOG_NAME there."""
    child_args = (list(args), str(Path(cwd) / LOG_NAME), cwd, dict(env), write_bytecode)
    process = context.Process(target=_child, args=child_args)
    process.start()
    return process


def _child_output(scratch: str) -> str:
    """What a forked run printed (nothing, when it died before opening its log)."""
    log_file = Path(scratch) / LOG_NAME
    return log_file.read_text(encoding="utf-8", errors="replace") if log_file.exists() else ""


def start_fork_server() -> multiprocessing.context.ForkServerContext:
    """Start the fork server now (its imports and warm-up run while the caller prepares the roots).

    There is one server per process, and every child shares its hash seed; it is fixed at 0 (as the
    grader fixes it for a fresh suite process), so whichever caller starts the server, a child says
    the same words in the same order every time.
    """
    context = multiprocessing.context.ForkServerContext()
    context.set_forkserver_preload(list(PRELOAD))
    saved = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = "0"  # the server is a fresh interpreter: it reads this as it starts
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        if saved is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = saved
    return context


@dataclass
class _Running:
    root: Path
    process: multiprocessing.process.BaseProcess
    scratch: tempfile.TemporaryDirectory[str]
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
    profile: str = "ci",
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    suite_dir: Path = SUITE_DIR,
    checks: Sequence[str] = CHECKS,
    on_done: Callable[[int, SuiteResult], None] | None = None,
    write_bytecode: bool = False,
) -> list[SuiteResult]:
    """Run the checks against every root, ``jobs`` at a time, each in its own forked process.

    ``write_bytecode`` lets the children cache the suite's assertion-rewritten modules (in the suite's
    ``__pycache__``), so the second and later children skip rewriting them. Leave it off for roots
    that must stay untouched (a submission's folder).

    Results come back in the order of ``roots``; ``on_done(index, result)`` hears of each as it finishes.
    """
    context = start_fork_server()
    child_env = _child_env(env, profile, write_bytecode)
    waiting = list(enumerate(roots))
    running: dict[int, _Running] = {}
    results: dict[int, SuiteResult] = {}
    limit = max(1, jobs or os.cpu_count() or 1)
    try:
        while waiting or running:
            while waiting and len(running) < limit:
                index, root = waiting.pop(0)
                scratch = tempfile.TemporaryDirectory(prefix="dedup-harness-run-")
                outcomes_file = Path(scratch.name) / OUTCOMES_NAME
                args = pytest_args(
                    root, outcomes_file, check_timeout=check_timeout, extra=extra_args, suite_dir=suite_dir
                )
                process = _start_child(context, args, scratch.name, child_env, write_bytecode)
                run = _Running(root, process, scratch, time.monotonic())
                running[index] = run
            _reap(running, results, timeout=timeout, checks=checks, on_done=on_done)
    finally:
        for run in running.values():  # interrupted: nothing may outlive the parent
            _kill(run.process)
            run.scratch.cleanup()
    return [results[index] for index in range(len(roots))]


def _reap(
    running: dict[int, _Running],
    results: dict[int, SuiteResult],
    *,
    timeout: float,
    checks: Sequence[str],
    on_done: Callable[[int, SuiteResult], None] | None,
) -> None:
    """Wait until a child ends or the earliest deadline passes; collect what ended, kill what overran."""
    deadline = min(run.started for run in running.values()) + timeout
    wait([run.process.sentinel for run in running.values()], timeout=max(0.0, deadline - time.monotonic()))
    now = time.monotonic()
    for index, run in list(running.items()):
        overran = now - run.started >= timeout
        if run.process.exitcode is None and not overran:
            continue
        _kill(run.process)  # whatever the run left running in its session goes too
        output = _child_output(run.scratch.name)
        result = read_result(
            run.root, run.outcomes_file, timed_out=overran, output=output, seconds=now - run.started, checks=checks
        )
        cpu_file = Path(run.scratch.name) / CPU_NAME
        result.cpu_seconds = float(cpu_file.read_text()) if cpu_file.exists() else None
        run.scratch.cleanup()
        del running[index]
        results[index] = result
        if on_done is not None:
            on_done(index, result)


def _kill(process: multiprocessing.process.BaseProcess) -> None:
    """Kill the child's whole process group (it made itself a session leader), or at least the child."""
    if process.pid is None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        if process.exitcode is None:
            process.kill()
    process.join()


def _child(args: list[str], log_file: str, cwd: str, env: Mapping[str, str], write_bytecode: bool) -> None:
    """In the forked child: a session of its own, output to a log file, then pytest in-process."""
    gc.freeze()  # what the fork server built stays out of this child's collections (and its pages unshared)
    os.setsid()
    os.chdir(cwd)
    os.environ.update(env)
    tempfile.tempdir = None  # the server may have cached its own; env may name another (TMPDIR)
    sys.dont_write_bytecode = not write_bytecode
    log = os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    import pytest

    code = pytest.main(args)
    usage = resource.getrusage(resource.RUSAGE_SELF)  # this child's own, since the fork
    Path(cwd, CPU_NAME).write_text(f"{usage.ru_utime + usage.ru_stime:.3f}")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(code))
