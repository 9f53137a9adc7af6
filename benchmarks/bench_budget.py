"""Benchmark: how closely a submission's budget holds, for the attacks on it, in each isolation tier.

Run with ``python benchmarks/bench_budget.py [--budget S] [--tiers T,T]``. Each tier grades one batch:
``stall_feed`` (asks for its input and never reads it: the grader's writes block), ``print_400mb_a_call``
(a correct stage that prints 400 MB on every call) and the correct sample, one at a time, with
``--budget S`` (20 by default). For each it prints the score, the grade's wall time, the worker
seconds charged to it (the grading plugin's ``used_seconds``) and how far past the budget they went:
the goal (issue 31) is within a second of the budget, and the loud stage graded in seconds. The
figures are printed, not asserted; on a shared machine, measure again when it is quiet.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from dedup_harness.grade import grader
from dedup_harness.grade.batch import grade_batch
from dedup_harness.grade.diagnosis import load_diagnoser
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.sandbox.tiers import Tier, why_not, worker_setup
from dedup_harness.grade.scoring import equal_weights

HARNESS_TESTS = Path(__file__).resolve().parent.parent / "tests" / "harness"
ATTACKS = ("stall_feed", "print_400mb_a_call")
CORRECT = HARNESS_TESTS / "submissions" / "samples" / "correct_different.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=20.0)
    parser.add_argument("--tiers", default="bubblewrap,unshare,landlock")
    args = parser.parse_args()
    sys.path.insert(0, str(HARNESS_TESTS))
    from grading_support import hostile_bytes

    used: dict[str, Any] = {}
    original = grader.from_sidecar

    def keeping(label: str, *rest: Any, **named: Any) -> Any:
        used[label] = rest[2].get("worker", {})  # (result, options, data, problems)
        return original(label, *rest, **named)

    grader.from_sidecar = keeping  # type: ignore[assignment]
    print(f"budget {args.budget:g} s; submission, score, wall s, worker s charged, past the budget")
    with tempfile.TemporaryDirectory(prefix="bench-budget-") as folder:
        paths = [str(CORRECT)]
        for name in ATTACKS:
            (Path(folder) / name).mkdir()
            (Path(folder) / name / "dedup.py").write_bytes(hostile_bytes(name))
            paths.append(str(Path(folder) / name))
        for tier in args.tiers.split(","):
            reason = why_not(Tier(tier))
            if reason is not None:
                print(f"{tier}: cannot run here ({reason})")
                continue
            options = GradingOptions(equal_weights(), load_diagnoser(), setup=worker_setup(tier), budget=args.budget)
            for report in grade_batch(paths, options, jobs=1):
                charged = float(used.get(report.submission, {}).get("used_seconds") or 0.0)
                name = Path(report.submission).name
                print(
                    f"{tier:10} {name:20} {report.score}/{report.max_score} {report.seconds:7.2f} {charged:7.2f} "
                    f"{max(0.0, charged - args.budget):+.2f}"
                )


if __name__ == "__main__":
    main()
