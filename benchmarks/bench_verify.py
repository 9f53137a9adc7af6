"""Benchmark: `dedup-harness verify` against one in-process run of the suite, and against its own floor.

Run with ``tox -e bench-verify`` (or ``python benchmarks/bench_verify.py [--rounds N]``). Each round
measures, back to back:

- the baseline: ``pytest.main`` over the suite against the reference in an interpreter that has
  already imported pytest (profile ``ci``), its wall and CPU seconds timed inside the process;
- verify: the whole command, ``dedup-harness verify``, in a fresh process: its wall seconds, the CPU
  seconds of its suite runs (from its ``--json``), and inside those runs each check's CPU seconds
  (its cases' setup, call and teardown: ``check_times.py``, which every run loads through
  ``PYTEST_PLUGINS``).

The floor is those checks' CPU seconds over all targets, divided by the cores: what the checks' own
work takes in verify's very runs, perfectly packed, with nothing for pytest's start and collection,
the forks, the imports or the fork server. CPU seconds stretch far less than wall seconds with other
work on the machine (the load average is printed), and each round's floor is taken in the run it is
compared with.

Goals (issue 33): verify within 10 s on two cores, and within 1.2 times its floor. Printed, not
asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import check_times

BASELINE = """
import os, sys, time
import pytest
from dedup_harness.core.paths import SUITE_DIR
os.environ["DEDUP_HARNESS_PROFILE"] = "ci"
started, cpu = time.perf_counter(), time.process_time()
code = pytest.main([
    str(SUITE_DIR), "-q", "-p", "no:cacheprovider",
    "-c", os.devnull, f"--rootdir={SUITE_DIR.parent}", f"--confcutdir={SUITE_DIR.parent}",
])
print("SECONDS", time.perf_counter() - started, time.process_time() - cpu, file=sys.stderr)
sys.exit(int(code))
"""
GOAL_SECONDS, GOAL_OVER_FLOOR = 10.0, 1.2
HERE = os.path.dirname(os.path.abspath(__file__))  # where check_times.py is, for verify's suite runs


def baseline_seconds() -> tuple[float, float]:
    """One in-process run of the suite against the reference, timed inside the process: (wall, CPU)."""
    done = subprocess.run([sys.executable, "-c", BASELINE], capture_output=True, text=True, check=True)
    line = next(line for line in done.stderr.splitlines() if line.startswith("SECONDS"))
    return float(line.split()[1]), float(line.split()[2])


def verify_seconds(scratch: Path) -> tuple[float, float, float]:
    """The whole `dedup-harness verify` command: (wall, CPU summed over its suite runs, its checks' CPU in them)."""
    report, times = scratch / "verify.json", scratch / "check-times"
    times.mkdir()
    env = {
        **os.environ,
        "PYTEST_PLUGINS": check_times.__name__,
        "PYTHONPATH": os.pathsep.join(filter(None, [HERE, os.environ.get("PYTHONPATH", "")])),
        check_times.FOLDER_ENV: str(times),
    }
    started = time.perf_counter()
    command = [sys.executable, "-m", "dedup_harness.cli", "verify", "--json", str(report)]
    subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    targets = json.loads(report.read_text(encoding="utf-8"))["targets"]
    runs = [json.loads(path.read_text(encoding="utf-8")) for path in times.iterdir()]
    shutil.rmtree(times)
    if len(runs) != len(targets):
        raise SystemExit(f"bench_verify: {len(runs)} suite runs timed their checks, of {len(targets)} targets")
    return wall, sum(t["cpu_seconds"] or 0.0 for t in targets), sum(sum(r["checks"].values()) for r in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="measure this many times; report the medians")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    baselines, verifies = [], []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(args.rounds):
            baselines.append(baseline_seconds())
            verifies.append(verify_seconds(Path(scratch)))
    base, wall = statistics.median(b[0] for b in baselines), statistics.median(v[0] for v in verifies)
    base_cpu, verify_cpu = statistics.median(b[1] for b in baselines), statistics.median(v[1] for v in verifies)
    floors = [checks / cores for _, _, checks in verifies]
    over_floor = statistics.median(v[0] / floor for v, floor in zip(verifies, floors, strict=True))
    figures: dict[str, Any] = {
        "cpus": cores,
        # Other work on the machine stretches every wall figure; the CPU figures far less.
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "verify_wall_seconds": [round(v[0], 2) for v in verifies],
        "suite_in_process_wall_seconds": [round(b[0], 2) for b in baselines],
        "ratio_to_the_suite_in_process": round(wall / base, 2),
        "suite_in_process_cpu_seconds": round(base_cpu, 2),
        "verify_cpu_seconds_over_all_suite_runs": round(verify_cpu, 2),
        "check_cpu_seconds_over_all_targets": [round(v[2], 2) for v in verifies],
        # The checks' own work in verify's runs spread evenly over the cores, with nothing else: wall >= floor.
        "floor_seconds": [round(floor, 2) for floor in floors],
        "ratio_to_the_floor": round(over_floor, 2),
        "goal": f"verify <= {GOAL_SECONDS:g} s wall and <= {GOAL_OVER_FLOOR:g} x its floor",
        "goal_met": wall <= GOAL_SECONDS and over_floor <= GOAL_OVER_FLOOR,
    }
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
