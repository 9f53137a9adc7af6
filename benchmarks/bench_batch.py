"""Benchmark: ``dedup-harness grade`` of a class of mostly correct submissions, as one command.

Run with ``python benchmarks/bench_batch.py [--size 200] [--baseline SRC]``. It writes SIZE folders
with a ``dedup.py`` each: the two correct samples in plain Python (``correct_plain.py``,
``correct_different.py``) in turn, each with a comment of its own (students' files differ), and every
tenth one a buggy sample. It grades them all with ``grade DIR/*/ --csv FILE`` (one submission per core,
as a TA runs it), and prints the wall time and the CPU seconds of the grading processes; every correct
submission must get full marks and every buggy one must not. ``--baseline SRC`` grades the same
folders with another source tree of the project (``git archive`` of an older commit, unpacked) in the
same run. The goal (issue 24): 200 submissions in at most 10 minutes on 2 cores. Printed, not asserted.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

from bench_grade_tiers import grade_rows, has_full_marks, timed_run

SAMPLES = Path(__file__).resolve().parent.parent / "tests" / "harness" / "submissions" / "samples"
CORRECT = [SAMPLES / "correct_plain.py", SAMPLES / "correct_different.py"]
BUGGY = sorted(p for p in SAMPLES.glob("*.py") if not p.name.startswith("correct_"))
BUGGY_EVERY = 10  # one submission in ten is buggy: "mostly correct"


def write_batch(folder: Path, size: int) -> list[str]:
    """``size`` distinct submissions, a folder each: correct ones, and every BUGGY_EVERY-th a buggy sample."""
    paths = []
    for n in range(size):
        source = BUGGY[n // BUGGY_EVERY % len(BUGGY)] if is_buggy(n) else CORRECT[n % 2]
        target = folder / f"student{n:03d}" / "dedup.py"
        target.parent.mkdir(parents=True)
        target.write_text(f"# student {n}\n" + source.read_text(encoding="utf-8"), encoding="utf-8")
        paths.append(str(target.parent))
    return paths


def is_buggy(n: int) -> bool:
    return n % BUGGY_EVERY == BUGGY_EVERY - 1


def grade_batch(paths: list[str], csv_file: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the grading processes, what went wrong or "")."""
    command = [sys.executable, "-m", "dedup_harness.cli", "grade", *paths, "--csv", str(csv_file)]
    wall, cpu, done = timed_run(command, env)
    if done.returncode != 0:
        return wall, cpu, (done.stderr.strip().splitlines() or ["no output"])[-1]
    return wall, cpu, wrong_scores(csv_file)


def wrong_scores(csv_file: Path) -> str:
    """ "" when every correct submission has full marks and every buggy one has not, else the first that is off."""
    for row in grade_rows(csv_file.read_text(encoding="utf-8")):
        n = int(re.findall(r"student(\d+)", row["submission"])[-1])
        if has_full_marks(row) == is_buggy(n):
            return f"{row['submission']}: {row['status']} {row['score']}/{row['max_score']}"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--baseline", type=Path, metavar="SRC", help="another source tree of the project, timed too")
    args = parser.parse_args()
    runs = {"this tree": dict(os.environ)}
    if args.baseline:
        runs["baseline"] = {**os.environ, "PYTHONPATH": str(args.baseline.resolve() / "harness")}
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as scratch:
        paths = write_batch(Path(scratch) / "class", args.size)
        print(f"grade of {args.size} submissions, {os.cpu_count()} cores, load {os.getloadavg()}")
        for name, env in runs.items():
            wall, cpu, error = grade_batch(paths, Path(scratch) / f"{name}.csv", env)
            said = f"FAILED: {error}" if error else "every score as expected"
            print(f"{name}: {wall:.1f} s wall ({wall / 60:.1f} min), {cpu:.1f} s CPU; {said}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
