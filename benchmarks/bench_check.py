"""Benchmark: ``dedup-harness check`` as a student runs it, in the folder of a correct pure-Python dedup.py.

The submission is ``tests/harness/submissions/samples/correct_plain.py`` (correct, in the plain Python
students write). Run with ``python benchmarks/bench_check.py [--rounds N] [--baseline SRC]``. Each
round runs the whole command once (the interpreter, pytest, the suite in-process, the audit hook that
notices what grade refuses, the report); ``--baseline SRC`` runs another source tree of the project
(``git archive`` of an earlier commit, unpacked) in the same rounds, alternating with this one, so a
burst of load on a shared machine falls on both alike. The median and best wall time and the median
CPU of each are printed with the load, not asserted. The goal: at most 3 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench_grade_tiers import timed_run

SAMPLES = Path(__file__).resolve().parent.parent / "tests" / "harness" / "submissions" / "samples"
SUBMISSION = SAMPLES / "correct_plain.py"
GOAL = 3.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--baseline", type=Path, help="another source tree of the project, timed alongside")
    args = parser.parse_args()
    trees = {"this tree": dict(os.environ)}
    if args.baseline:
        trees[f"baseline {args.baseline}"] = {**os.environ, "PYTHONPATH": str(args.baseline.resolve() / "harness")}
    walls: dict[str, list[float]] = {name: [] for name in trees}
    cpus: dict[str, list[float]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as folder:
        shutil.copyfile(SUBMISSION, Path(folder) / "dedup.py")
        command = [sys.executable, "-m", "dedup_harness.cli", "check", str(Path(folder) / "dedup.py")]
        for _ in range(args.rounds):
            for name, env in trees.items():
                wall, cpu, done = timed_run(command, env)
                if done.returncode != 0:
                    print(f"{name}: check exited {done.returncode}:\n{done.stdout[-800:]}{done.stderr[-800:]}")
                    return 1
                walls[name].append(wall)
                cpus[name].append(cpu)
    for name in trees:
        median = statistics.median(walls[name])
        print(
            f"{name}: median {median:.2f} s, best {min(walls[name]):.2f} s, CPU {statistics.median(cpus[name]):.2f} s "
            f"(goal <= {GOAL:g} s: {'met' if median <= GOAL else 'NOT met'})"
        )
    print(f"load average {os.getloadavg()[0]:.1f}, {args.rounds} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
