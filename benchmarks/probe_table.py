"""The trust issue's probes, each graded in every tier beside a correct submission: one table.

Run with ``python benchmarks/probe_table.py [--tiers bubblewrap unshare landlock seccomp] [--probes ...]``.
For each tier that can run here, every probe (a hostile sample of ``tests/harness/submissions/hostile``)
and the correct sample ``correct_different.py`` are graded in one batch, as ``dedup-harness grade``
grades them (``grade_batch``, one warm fork server, jobs = cores). A row says what the probe got (its
status, score and the checks it lost, by number), whether the correct submission beside it kept full
marks, and the probe's trusted suite process's own peak resident memory (VmHWM, from its grading
sidecar: the process that reads what the worker sends). Printed as Markdown; nothing is asserted
here (the tests in tests/harness assert each verdict).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from dedup_harness.core.paths import TESTS_DIR
from dedup_harness.grade import grader
from dedup_harness.grade.batch import default_jobs, grade_batch
from dedup_harness.grade.diagnosis import load_diagnoser
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.reports.model import GradeReport
from dedup_harness.grade.sandbox.tiers import Tier, why_not, worker_setup
from dedup_harness.grade.scoring import equal_weights

sys.path.insert(0, str(TESTS_DIR / "harness"))
from grading_support import hostile_source  # the tests' own reader of the samples

CORRECT = TESTS_DIR / "harness" / "submissions" / "samples" / "correct_different.py"
PROBES = (  # issue 21's findings, in its order
    "tree_planter",
    "flood_endless_documents",
    "flood_medium_replies",
    "flood_stats_mirror",
    "huge_reply",
    "memory_spike_then_hold",
    "disk_bomb",
    "classmate_reader",
    "report_corrupter",
    "tier_attacks",
)
TIERS = ("bubblewrap", "unshare", "landlock", "seccomp")


def graded(tier: str, probes: list[str], folder: Path) -> tuple[dict[str, GradeReport], dict[str, int]]:
    """Each probe's report and its suite process's peak bytes, and the correct one's under "correct"."""
    paths = {"correct": str(CORRECT)}
    for name in probes:
        (folder / name).mkdir()
        (folder / name / "dedup.py").write_text(hostile_source(name), encoding="utf-8")
        paths[name] = str(folder / name / "dedup.py")
    names = {path: name for name, path in paths.items()}
    peaks: dict[str, int] = {}
    original = grader.from_sidecar

    def keeping_the_peak(label: str, *args: Any, **kwargs: Any) -> GradeReport:
        peaks[names.get(label, label)] = args[2]["grader"]["peak_bytes"]  # (label, result, options, data, ...)
        return original(label, *args, **kwargs)

    grader.from_sidecar = keeping_the_peak
    try:
        options = GradingOptions(equal_weights(), load_diagnoser(), setup=worker_setup(tier))
        reports = grade_batch(list(paths.values()), options, jobs=default_jobs())
    finally:
        grader.from_sidecar = original
    return {names[r.submission]: r for r in reports}, peaks


def lost(report: GradeReport) -> str:
    numbers = [f"{c.number}{'' if c.outcome.value == 'failed' else f' ({c.outcome.value})'}"
               for c in report.checks if c.outcome.value != "passed"]  # fmt: skip
    return ", ".join(numbers) or "none"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tiers", nargs="*", default=list(TIERS))
    parser.add_argument("--probes", nargs="*", default=list(PROBES))
    args = parser.parse_args()
    print("| probe | tier | the probe's grade | checks it lost | correct beside it | suite process peak |")
    print("|---|---|---|---|---|---:|")
    for tier in args.tiers:
        if (reason := why_not(Tier(tier))) is not None:
            print(f"| (every probe) | {tier} | not run here: {reason} | | | |")
            continue
        with tempfile.TemporaryDirectory(prefix="probe-table-") as scratch:
            reports, peaks = graded(tier, args.probes, Path(scratch))
        correct = reports["correct"]
        kept = "full marks" if correct.score == correct.max_score else f"LOST: {correct.score}/{correct.max_score}"
        for name in args.probes:
            report = reports[name]
            grade = f"{report.status.value} {report.score}/{report.max_score}"
            peak = f"{peaks[name] >> 20} MiB" if name in peaks else "no sidecar"
            print(f"| {name} | {tier} | {grade} | {lost(report)} | {kept} | {peak} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
