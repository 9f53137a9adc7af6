"""Benchmark: ``dedup-harness grade correct_plain.py`` in each isolation tier, round-robin.

The submission is ``tests/harness/submissions/samples/correct_plain.py``: correct, in the plain Python
students write (the reference is not what a grader meets).

Run with ``python benchmarks/bench_grade_tiers.py [--rounds N] [--as root|user|container]``. Each
round runs the whole command once per tier (the preflight, the fork server, the suite, the worker:
what a TA waits for), the tiers in a rotated order each round, so a burst of load on a shared
machine falls on every tier alike; the median and the best wall time per tier are printed, with
the CPU its processes used. The goal (issue 18): at most 5 s in every tier. A tier that cannot run
here is said and left out. ``--as user`` and ``--as container`` run the command in those setups
(root only; see ``tests/harness/machine_setups.py``; ``--python`` names an interpreter the test user
can run). ``--baseline SRC`` adds a row for another source tree of the project (e.g. ``git archive``
of the commit before the tiers, unpacked), run in the same rounds with its own defaults: on a shared
machine the difference is the figure to trust. The figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

TIERS = ("bubblewrap", "unshare", "landlock")
SAMPLES = Path(__file__).resolve().parent.parent / "tests" / "harness" / "submissions" / "samples"
SUBMISSION = SAMPLES / "correct_plain.py"
CONTAINER_CAPS = (
    "-all,+chown,+dac_override,+fowner,+fsetid,+kill,+setgid,+setuid,+setpcap,"
    "+net_bind_service,+net_raw,+sys_chroot,+mknod,+audit_write,+setfcap"
)


def prefix(setup: str, user: str) -> list[str]:
    if setup == "user":
        return ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups"]
    if setup == "container":
        return ["setpriv", "--bounding-set", CONTAINER_CAPS, "--inh-caps", "-all"]
    return []


def timed_run(command: list[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Run ``command`` from /: (wall seconds, CPU seconds of its processes, what it did)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd="/", env=env, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done


def one_grade(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of its processes, what went wrong or "")."""
    wall, cpu, done = timed_run(command, env)
    ok = done.returncode == 0 and full_marks(done.stdout)
    return wall, cpu, "" if ok else (done.stderr.strip().splitlines() or ["no output"])[-1]


def full_marks(csv_text: str) -> bool:
    """Does ``grade --csv -``'s output give its one submission full marks?"""
    rows = grade_rows(csv_text)
    return bool(rows) and has_full_marks(rows[0])


def grade_rows(csv_text: str) -> list[dict[str, str]]:
    """The rows of grade's CSV. A baseline older than the header-first CSV opens with a comment line naming its
    batch: it is dropped."""
    return list(csv.DictReader(line for line in csv_text.splitlines(keepends=True) if not line.startswith("# ")))


def has_full_marks(row: dict[str, str]) -> bool:
    return row.get("status") == "graded" and row.get("score") == row.get("max_score")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--as", dest="setup", choices=("root", "user", "container"), default="root")
    parser.add_argument("--user", default="dedup-harness-test", help="the user of --as user")
    parser.add_argument("--python", default=sys.executable, help="the grader's interpreter")
    parser.add_argument("--baseline", type=Path, metavar="SRC", help="another source tree of the project, timed too")
    args = parser.parse_args()
    submission = str(SUBMISSION)
    grade = [*prefix(args.setup, args.user), args.python, "-m", "dedup_harness.cli", "grade"]
    commands = {tier: ([*grade, submission, "--tier", tier, "--csv", "-"], dict(os.environ)) for tier in TIERS}
    if args.baseline:  # the same submission, graded by the other tree
        baseline_env = {**os.environ, "PYTHONPATH": str(args.baseline.resolve() / "harness")}
        commands["baseline"] = ([*grade, submission, "--csv", "-"], baseline_env)
    names = list(commands)
    walls: dict[str, list[float]] = {name: [] for name in names}
    cpus: dict[str, list[float]] = {name: [] for name in names}
    failed: dict[str, str] = {}
    for round_number in range(args.rounds + 1):  # round 0 warms the caches and is not counted
        order = names[round_number % len(names) :] + names[: round_number % len(names)]
        for tier in (t for t in order if t not in failed):
            wall, cpu, error = one_grade(*commands[tier])
            if error:
                failed[tier] = error
            elif round_number:
                walls[tier].append(wall)
                cpus[tier].append(cpu)
    print(f"dedup-harness grade {SUBMISSION.name}, --as {args.setup}, {args.rounds} rounds, load {os.getloadavg()}")
    print("| tier | median wall | best wall | worst wall | median CPU | rounds |")
    print("|---|---:|---:|---:|---:|---:|")
    for tier in names:
        if tier in failed:
            print(f"| {tier} | cannot run here: {failed[tier]} | | | | |")
            continue
        w, c = walls[tier], cpus[tier]
        row = [statistics.median(w), min(w), max(w), statistics.median(c)]
        print(f"| {tier} | " + " | ".join(f"{x:.2f} s" for x in row) + f" | {len(w)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
