"""verify's engine: build the targets, run the suite against each in parallel, judge the kill matrix.

The canary's run starts first; when any check does not fail on it, the other runs are stopped and
the matrix holds the canary alone (a suite that cannot fail proves nothing about the mutants).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from dedup_harness.core import profiles, runner, scratch_dirs
from dedup_harness.core.kill_matrix import read_kill_matrix
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.runner.result import SuiteResult
from dedup_harness.verify.matrix import Matrix, Row, judge
from dedup_harness.verify.spans import Span, mutant_spans
from dedup_harness.verify.targets import Kind, Layout, Target, build_targets

DEFAULT_LAYOUT = Layout()
OnDone = Callable[[Target, SuiteResult], None]


class _CanarySurvived(Exception):
    pass


# Beyond what no run reads (``runner.args.UNREAD``), verify skips the tracebacks pytest renders for each
# failed case, with source (every mutant fails many, and nobody reads them), output capture (a child's
# output already goes to its log file, where a broken run's tail is read) and the plugins the suite
# never calls on, whose hooks run around every phase of every case: about 5 percent of a run's CPU.
UNUSED_PLUGINS = (
    "logging",
    "warnings",
    "threadexception",
    "recwarn",
    "monkeypatch",
    "legacypath",
    "debugging",
    "doctest",
    "unittest",
    "junitxml",
    "pastebin",
    "stepwise",
    "setuponly",
    "setupplan",
    "subtests",
)
VERIFY_PYTEST_ARGS = ("--tb=no", "-s", *(arg for name in UNUSED_PLUGINS for arg in ("-p", f"no:{name}")))


def verify(
    layout: Layout = DEFAULT_LAYOUT,
    *,
    extra_roots: tuple[Path, ...] = (),
    jobs: int | None = None,
    profile: str = profiles.VERIFY,
    check_timeout: float = 60.0,
    timeout: float = 600.0,
    on_done: OnDone | None = None,
    on_start: Callable[[list[Target]], None] | None = None,
) -> tuple[Matrix, dict[str, list[Span]]]:
    """The judged kill matrix, and where each mutant changes the reference (for reports).

    The fork server starts first: it warms up (pytest, Hypothesis, the suite's corpora) while the targets
    are built, and nothing before it here imports pytest (``core.runner`` imports its parts when used).
    """
    runner.start_fork_server()
    committed = read_kill_matrix(layout.kill_matrix_file) if layout.kill_matrix_file.is_file() else None
    with tempfile.TemporaryDirectory(prefix=scratch_dirs.prefix("verify")) as scratch:
        targets = build_targets(layout, Path(scratch), extra_roots)
        spill = Path(scratch, "tmp")
        spill.mkdir()
        spans = {t.name: mutant_spans(layout.impl_root, t.root) for t in targets if t.kind is Kind.MUTANT and t.root}
        runnable = run_order([t for t in targets if t.root is not None], committed)
        results: dict[str, SuiteResult] = {}
        if on_start is not None:
            on_start(runnable)

        def done(index: int, result: SuiteResult) -> None:
            target = runnable[index]
            results[target.name] = result
            if on_done is not None:
                on_done(target, result)
            if target.kind is Kind.CANARY and set(result.outcomes.values()) != {Outcome.FAILED}:
                raise _CanarySurvived

        try:
            runner.run_suites(
                [t.root for t in runnable if t.root is not None],
                jobs=jobs,
                timeout=timeout,
                check_timeout=check_timeout,
                profile=profile,
                suite_dir=layout.suite_dir,
                checks=layout.checks,
                extra_args=VERIFY_PYTEST_ARGS,
                # What a mutant leaves in the system temp folder (a spool it never removes) goes with ours.
                env={"TMPDIR": str(spill)},
                on_done=done,
                write_bytecode=True,  # pyc files land in __pycache__ folders (git-ignored) beside the suite
            )
        except _CanarySurvived:
            targets = [t for t in targets if t.kind is Kind.CANARY]
    rows = [Row(t, results.get(t.name)) for t in targets]
    return judge(layout.checks, rows, committed), spans


def run_order(targets: list[Target], committed: dict[str, list[str]] | None) -> list[Target]:
    """The canary first; then the longest runs first, so that no long run starts last and runs alone.

    A run is long when few checks fail (each failing check stops early): mutants go by the size of
    their last committed kill set, the reference (which fails nothing) first among them.
    """
    kills = committed or {}
    canary = [t for t in targets if t.kind is Kind.CANARY]
    rest = [t for t in targets if t.kind is not Kind.CANARY]
    return canary + sorted(rest, key=lambda t: len(kills.get(t.name, ())) if t.kind is Kind.MUTANT else -1)
