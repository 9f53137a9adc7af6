"""Benchmark: the kill power of each check of the suite, measured with mutants kept out of the catalogue.

Run with ``python benchmarks/check_power.py [--json FILE] [--markdown FILE]``. It builds a scratch root
for every extra mutant (``power/mutants.toml``), every lossy identity of
``tests/harness/test_lossy_identities.py`` and every catalogue mutant, runs the whole suite against
each of them and against the reference under the derandomized ``grading`` profile (in parallel, as
verify does), and reports for every check the mutants it must kill, those it killed by an assertion,
those that survived, and its power (killed / targeted). A check's targets are the extra mutants aimed
at it and the catalogue mutants whose committed kill set (``mutants/kill_matrix.json``) names it.
Each check's CPU seconds against the reference come from ``bench_checks.py`` under the same profile.

A smaller suite must keep every kill: rerun this after trimming a check and compare the tables.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_checks
from power.extra_mutants import Target, all_targets
from power.tables import MutantRun, broken_reason, check_powers, figures, gaps, lost_kills, markdown, power_table

from dedup_harness.core import profiles, scratch_dirs
from dedup_harness.core.catalogue import load_catalogue
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.kill_matrix import kill_matrix_path, read_kill_matrix
from dedup_harness.core.mutant_roots import mutant_root
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import DATA_ROOT, IMPL_ROOT
from dedup_harness.core.runner import SuiteResult, run_suites
from dedup_harness.verify.engine import VERIFY_PYTEST_ARGS

PROFILE = profiles.GRADING


def build_roots(targets: list[Target], scratch: Path) -> tuple[list[tuple[str, str, str, str]], list[Path]]:
    """The reference, every target and every catalogue mutant as roots: ((name, source, check, bug), root) each."""
    entries = [("reference", "reference", "", "")]
    roots = [IMPL_ROOT]
    for target in targets:
        entries.append((target.name, target.source, target.check, target.bug))
        roots.append(target.build(scratch / target.source / target.name))
    for mutant in load_catalogue():
        entries.append((mutant.id, "catalogue", "", mutant.pitfall))
        roots.append(mutant_root(mutant, scratch / "catalogue" / mutant.id))
    return entries, roots


def run_all(roots: list[Path], names: list[str], jobs: int | None, scratch: Path) -> list[SuiteResult]:
    """The suite against every root under the grading profile, two at a time on two cores, with progress lines."""
    spill = scratch / "tmp"  # what a mutant leaves in the system temp folder goes with the scratch
    spill.mkdir()

    def done(index: int, result: SuiteResult) -> None:
        failed = sorted(result.failed(), key=CHECKS.index)
        print(f"  {names[index]}: fails {len(failed)} check(s) in {result.seconds:.1f} s", file=sys.stderr)

    return run_suites(
        roots,
        jobs=jobs,
        profile=PROFILE,
        extra_args=VERIFY_PYTEST_ARGS,
        env={"TMPDIR": str(spill)},
        on_done=done,
        write_bytecode=True,
    )


def commit() -> str:
    """The commit measured, with "+changes" when the work tree differs from it ("unknown" outside a checkout)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=DATA_ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=DATA_ROOT, capture_output=True, text=True)
    except OSError:
        return "unknown"
    if head.returncode != 0:
        return "unknown"
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def measure(jobs: int | None, cpu_rounds: int) -> tuple[list[MutantRun], dict[str, list[str]], dict[str, Any]]:
    """Every run, the committed kill sets, and what was measured when and how (for the report's head)."""
    started, load = time.monotonic(), os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix=scratch_dirs.prefix("power")) as folder:
        entries, roots = build_roots(all_targets(), Path(folder))
        print(f"check_power: the suite against {len(roots)} roots ({PROFILE} profile)", file=sys.stderr)
        results = run_all(roots, [e[0] for e in entries], jobs, Path(folder))
    suite_seconds = time.monotonic() - started
    reference = results[0]
    if set(reference.outcomes.values()) != {Outcome.PASSED}:
        raise SystemExit(f"check_power: the reference does not pass every check: {reference.outcomes}")
    runs = [
        MutantRun(
            name,
            source,
            check,
            bug,
            {check: str(outcome) for check, outcome in result.outcomes.items()},
            broken_reason(result.outcomes, result.collection_errors),
        )
        for (name, source, check, bug), result in zip(entries[1:], results[1:], strict=True)
    ]
    print(f"check_power: each check's CPU against the reference, {cpu_rounds} round(s)", file=sys.stderr)
    _, cpu = bench_checks.measure(cpu_rounds, PROFILE) if cpu_rounds else (0.0, {})
    cpu = {check: round(seconds, 3) for check, seconds in cpu.items()}
    about = {
        "date": datetime.date.today().isoformat(),
        "commit": commit(),
        "profile": PROFILE,
        "roots": len(roots),
        "suite_runs_wall_seconds": round(suite_seconds, 1),
        "suite_runs_cpu_seconds": round(sum(r.cpu_seconds or 0.0 for r in results), 1),
        "total_wall_seconds": round(time.monotonic() - started, 1),
        "load_average_1min": [round(load, 2), round(os.getloadavg()[0], 2)],
        "cpu_rounds": cpu_rounds,
    }
    return runs, read_kill_matrix(kill_matrix_path()), about | {"check_cpu_seconds": cpu}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", type=Path, help="write every figure here as JSON")
    parser.add_argument("--markdown", type=Path, help="write the report here as Markdown")
    parser.add_argument(
        "--compare", type=Path, help="an earlier run's --json file: list every kill lost since, exit 1 if any"
    )
    parser.add_argument("--jobs", type=int, help="suite runs at a time (default: one per core)")
    parser.add_argument(
        "--cpu-rounds", type=int, default=3, help="rounds of bench_checks.py for each check's CPU (0: skip)"
    )
    args = parser.parse_args()
    runs, committed, about = measure(args.jobs, args.cpu_rounds)
    cpu = about.pop("check_cpu_seconds")
    rows = check_powers(runs, committed, cpu)
    print(power_table(rows))
    found = gaps(runs)
    print(f"\n{len(found)} extra mutant(s) no check kills: {[run.name for run in found]}")
    print(json.dumps(about))
    if args.json:
        data = figures(runs, rows, committed, about | {"check_cpu_seconds": cpu})
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(markdown(runs, rows, committed, about), encoding="utf-8")
    broken = [run.name for run in runs if run.broken]
    if broken:
        print(f"check_power: broken mutants measured nothing, fix them: {broken}", file=sys.stderr)
    lost = lost_kills(json.loads(args.compare.read_text(encoding="utf-8")), runs) if args.compare else {}
    for check, names in lost.items():
        print(f"check_power: lost since {args.compare}: {check}: {names}", file=sys.stderr)
    if args.compare and not lost:
        print(f"check_power: every kill of {args.compare} is still made", file=sys.stderr)
    return 1 if broken or lost else 0


if __name__ == "__main__":
    sys.exit(main())
