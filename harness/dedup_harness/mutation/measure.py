"""mutmut over the reference, in a scratch copy of the project, read through its non-interactive outputs.

The scratch copy is ``scratch``'s job; driving mutmut's command line is ``mutmut_cli``'s. mutmut
runs each mutant against the tests that reached the mutated function; every mutant it did not kill
is run again against the whole selection (``rerun``) before it counts as a survivor, and a survivor
is judged against the reviewed equivalents.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from dedup_harness.core.signals import thread_pool
from dedup_harness.mutation.equivalents import Equivalents, mutant_key
from dedup_harness.mutation.mutmut_cli import (
    BUCKETS,
    MutationError,
    OnProgress,
    check_buckets,
    mutmut,
    parse_results,
    run_mutmut,
)
from dedup_harness.mutation.rerun import Rerun, calibrate, rerun
from dedup_harness.mutation.scratch import make_scratch

DETECTED = frozenset({"killed", "timeout"})  # every other status is re-run against the whole selection


class Fate(StrEnum):
    KILLED = "killed"
    TIMEOUT = "timeout"
    KILLED_ON_RERUN = "killed on re-run"
    EQUIVALENT = "equivalent"
    SURVIVED = "survived"  # not reviewed as equivalent: fails the command
    ERROR = "error"


@dataclass
class Survivor:
    """A mutant mutmut did not kill, after its re-run against the whole selection."""

    name: str  # mutmut's name (positional: shifts when the function changes)
    status: str  # mutmut's status
    key: str  # stable: function + hash of the change
    diff: str
    rerun: Rerun
    verdict: Fate
    reason: str = ""  # from the equivalents file


@dataclass
class MutationReport:
    mutmut_version: str
    buckets: dict[str, int]
    total: int
    survivors: list[Survivor]
    stale_equivalents: list[str]
    equivalents_file: Path
    seconds: float = 0.0
    mutmut_seconds: float = 0.0

    def count(self, verdict: Fate) -> int:
        return sum(1 for s in self.survivors if s.verdict is verdict)

    @property
    def timeouts(self) -> int:
        return self.buckets["timeout"] + self.count(Fate.TIMEOUT)

    @property
    def killed(self) -> int:
        """Detected mutants: a test failed (in mutmut's run or the re-run) or the suite ran out of time."""
        return self.buckets["killed"] + self.count(Fate.KILLED_ON_RERUN) + self.timeouts

    @property
    def non_equivalent(self) -> int:
        return self.total - self.count(Fate.EQUIVALENT)

    @property
    def ok(self) -> bool:
        return self.count(Fate.SURVIVED) == 0 and self.count(Fate.ERROR) == 0


def judge(
    scratch: Path,
    statuses: Mapping[str, str],
    equivalents: Equivalents,
    *,
    jobs: int,
    progress: OnProgress,
) -> list[Survivor]:
    """Re-run every mutant mutmut did not detect, ``jobs`` at a time, and judge it against the equivalents."""
    undetected = sorted(name for name, status in statuses.items() if status not in DETECTED)
    if not undetected:
        return []
    progress("checking the re-run", None, None)
    timeout = max(60.0, 10 * calibrate(scratch))
    # `mutmut show` prints a `# name: status` line, then the diff.
    diffs = {name: mutmut(scratch, "show", name).split("\n", 1)[-1].strip() for name in undetected}
    outcomes: dict[str, Rerun] = {}
    progress("re-running survivors against the whole selection", 0, len(undetected))
    with thread_pool(jobs) as pool:
        futures = {pool.submit(rerun, scratch, name, timeout=timeout): name for name in undetected}
        for future in as_completed(futures):
            outcomes[futures[future]] = future.result()
            progress("re-running survivors against the whole selection", len(outcomes), len(undetected))
    survivors = []
    for name in undetected:
        key = mutant_key(name, diffs[name])
        reason = equivalents.reason_by_key.get(key, "")
        verdict = verdict_of(outcomes[name], reason)
        survivors.append(Survivor(name, statuses[name], key, diffs[name], outcomes[name], verdict, reason))
    return survivors


def verdict_of(outcome: Rerun, reason: str) -> Fate:
    if outcome is Rerun.FAILED:
        return Fate.KILLED_ON_RERUN
    if outcome is Rerun.TIMEOUT:
        return Fate.TIMEOUT
    if outcome is Rerun.ERROR:
        return Fate.ERROR
    return Fate.EQUIVALENT if reason else Fate.SURVIVED


def stale(equivalents: Equivalents, survivors: Sequence[Survivor]) -> list[str]:
    """Listed equivalents that no mutant of this run matched (killed now, or the code changed)."""
    used = {s.key for s in survivors if s.verdict is Fate.EQUIVALENT}
    return sorted(set(equivalents.reason_by_key) - used)


@dataclass
class Measurement:
    """What one run needs: where to work, how wide, what has been reviewed."""

    scratch: Path
    equivalents: Equivalents
    max_children: int
    progress: OnProgress = field(default=lambda phase, done, total: None)


def measure(run: Measurement) -> MutationReport:
    """The whole measurement in ``run.scratch`` (an empty folder the caller removes)."""
    from importlib.metadata import version

    started = time.monotonic()
    make_scratch(run.scratch)
    run_mutmut(run.scratch, max_children=run.max_children, progress=run.progress)
    mutmut_seconds = time.monotonic() - started
    mutmut(run.scratch, "export-cicd-stats")
    stats_file = run.scratch / "mutants" / "mutmut-cicd-stats.json"
    try:
        buckets = json.loads(stats_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise MutationError(f"cannot read {stats_file.name}: {exc}") from None
    statuses = parse_results(mutmut(run.scratch, "results", "--all", "true"))
    total = check_buckets(buckets, statuses)
    survivors = judge(run.scratch, statuses, run.equivalents, jobs=run.max_children, progress=run.progress)
    return MutationReport(
        mutmut_version=version("mutmut"),
        buckets={key: int(buckets[key]) for key in (*BUCKETS, "total")},
        total=total,
        survivors=survivors,
        stale_equivalents=stale(run.equivalents, survivors),
        equivalents_file=run.equivalents.path,
        seconds=time.monotonic() - started,
        mutmut_seconds=mutmut_seconds,
    )
