"""Benchmark: where the time of `check` and of `grade` goes, on a correct submission written as students write.

Run with ``python benchmarks/time_breakdown.py [--rounds N] [--tiers bubblewrap unshare landlock]``.
The submission is ``tests/harness/submissions/samples/correct_plain.py`` (plain Python from the
chapter, every pass hashing again what it needs), not the reference: the goals are about students'
code. Printed, not asserted (goals: `check` at most 3 s, a grade at most 5 s in every tier):

- ``check``: the whole command (wall and CPU, the medians of N runs), and inside it each check's CPU
  and how many inputs it judged (a Hypothesis example is one), in the suite run alone;
- ``grade``, per tier: the whole command (wall and CPU, medians), the preflight as it reports itself,
  each check's seconds (from JUnit), and what the worker cost: its starts, the seconds it used, the
  bytes it sent the grader, the grader's own peak memory (from the grading sidecar);
- the same grade of a buggy sample (keeps_last): what shrinking its failed cases and comparing its
  behaviour with the mutants adds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_checks

from dedup_harness.core.mutant_roots import copy_root
from dedup_harness.core.paths import IMPL_ROOT, TESTS_DIR
from dedup_harness.grade import grader
from dedup_harness.grade.diagnosis import load_diagnoser
from dedup_harness.grade.grader import GradingOptions, grade
from dedup_harness.grade.sandbox.tiers import Tier, why_not, worker_setup
from dedup_harness.grade.scoring import equal_weights

SAMPLES = TESTS_DIR / "harness" / "submissions" / "samples"
CORRECT, BUGGY = SAMPLES / "correct_plain.py", SAMPLES / "keeps_last.py"
COMMAND = [sys.executable, "-m", "dedup_harness.cli"]
PREFLIGHT = re.compile(r"preflight \(([0-9.]+) s\)")


def timed(command: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(wall seconds, CPU seconds of its processes, what it did) of one whole command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done


def medians(rounds: int, run: Callable[[], tuple[float, float, Any]]) -> tuple[float, float, Any]:
    runs = [run() for _ in range(rounds)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[-1][2]


def check_figures(rounds: int, scratch: Path) -> dict[str, Any]:
    (scratch / "check").mkdir()
    (scratch / "check" / "dedup.py").write_bytes(CORRECT.read_bytes())
    wall, cpu, done = medians(rounds, lambda: timed([*COMMAND, "check"], scratch / "check"))
    assert done.returncode == 0, done.stdout + done.stderr
    root = copy_root(IMPL_ROOT, scratch / "root")
    (root / "corpus" / "dedup.py").write_bytes(CORRECT.read_bytes())
    suite = bench_checks.suite_round(str(scratch), "grading", str(root))
    return {"command_wall": wall, "command_cpu": cpu, "suite_cpu": suite["total"], "checks": suite["checks"],
            "inputs": suite["inputs"]}  # fmt: skip


def grade_command(rounds: int, tier: str, scratch: Path) -> dict[str, Any]:
    junit = scratch / f"{tier}.xml"
    command = [*COMMAND, "grade", str(CORRECT), "--tier", tier, "--csv", "-", "--junit", str(junit)]
    wall, cpu, done = medians(rounds, lambda: timed(command, scratch))
    assert done.returncode == 0, done.stderr
    found = PREFLIGHT.search(done.stderr)
    cases = ElementTree.parse(junit).getroot().iter("testcase")
    return {"command_wall": wall, "command_cpu": cpu, "preflight": float(found[1]) if found else None,
            "checks": {case.get("name"): float(case.get("time") or 0) for case in cases}}  # fmt: skip


def grade_inside(path: Path, tier: str) -> tuple[float, dict[str, Any]]:
    """One grade in this process (no preflight): its seconds, and the sidecar the grading plugin wrote."""
    kept: dict[str, Any] = {}
    original = grader.from_sidecar

    def keeping(label: str, *args: Any, **kwargs: Any) -> Any:
        kept.update(args[2])  # (label, result, options, data, problems)
        return original(label, *args, **kwargs)

    grader.from_sidecar = keeping  # type: ignore[assignment]
    try:
        report = grade(path, GradingOptions(equal_weights(), load_diagnoser(), setup=worker_setup(tier)))
    finally:
        grader.from_sidecar = original  # type: ignore[assignment]
    return report.seconds, kept


def worker_figures(tier: str) -> dict[str, Any]:
    grade_inside(CORRECT, tier)  # the first caches the suite's rewritten modules
    seconds, sidecar = grade_inside(CORRECT, tier)
    buggy_seconds, _ = grade_inside(BUGGY, tier)
    worker = sidecar.get("worker", {})
    return {
        "grade_seconds": seconds,
        "buggy_grade_seconds": buggy_seconds,
        "starts": worker.get("starts"),
        "start_seconds": worker.get("start_seconds"),
        "worker_used_seconds": worker.get("used_seconds"),
        "received_bytes": worker.get("received_bytes"),
        "grader_peak_bytes": sidecar.get("grader", {}).get("peak_bytes"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="whole-command runs per figure; the medians")
    parser.add_argument("--tiers", nargs="*", default=[t.value for t in (Tier.BUBBLEWRAP, Tier.UNSHARE, Tier.LANDLOCK)])
    args = parser.parse_args()
    load = [round(os.getloadavg()[0], 2)]
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        figures: dict[str, Any] = {"check": check_figures(args.rounds, scratch), "grade": {}}
        for tier in args.tiers:
            if why_not(Tier(tier)) is not None:
                figures["grade"][tier] = {"not here": why_not(Tier(tier))}
                continue
            figures["grade"][tier] = {**grade_command(args.rounds, tier, scratch), **worker_figures(tier)}
    figures["load_average_1min"] = [*load, round(os.getloadavg()[0], 2)]
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
