"""Benchmark: `dedup-harness verify` against one in-process run of the suite on the reference.

Run with ``tox -e bench-verify`` (or ``python benchmarks/bench_verify.py``). Both figures come from
the same invocation, measured back to back: the baseline is ``pytest.main`` over the suite against
the reference in an interpreter that has already imported pytest (profile ``ci``); verify is the
whole command, ``dedup-harness verify``, in a fresh process. The goal (issue 3): verify at most 15 s
wall and at most 3 times the baseline on a 2-core machine. The figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

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


def baseline_seconds() -> tuple[float, float]:
    """One in-process run of the suite against the reference, timed inside the process: (wall, CPU)."""
    done = subprocess.run([sys.executable, "-c", BASELINE], capture_output=True, text=True, check=True)
    line = next(line for line in done.stderr.splitlines() if line.startswith("SECONDS"))
    return float(line.split()[1]), float(line.split()[2])


def verify_seconds(scratch: str) -> tuple[float, float]:
    """The whole `dedup-harness verify` command: (wall, CPU summed over its suite runs)."""
    started = time.perf_counter()
    report = os.path.join(scratch, "verify.json")
    subprocess.run(
        [sys.executable, "-m", "dedup_harness.cli", "verify", "--json", report],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - started
    with open(report, encoding="utf-8") as f:
        targets = json.load(f)["targets"]
    return wall, sum(t["cpu_seconds"] or 0.0 for t in targets)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="measure this many times; report the median")
    args = parser.parse_args()
    import statistics
    import tempfile

    baselines, verifies = [], []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(args.rounds):
            baselines.append(baseline_seconds())
            verifies.append(verify_seconds(scratch))
    base, wall = statistics.median(b[0] for b in baselines), statistics.median(v[0] for v in verifies)
    base_cpu, verify_cpu = statistics.median(b[1] for b in baselines), statistics.median(v[1] for v in verifies)
    cpus = os.cpu_count() or 1
    figures = {
        "cpus": cpus,
        # Other work on the machine stretches every wall figure; the CPU figures do not move with it.
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "suite_in_process_wall_seconds": [round(b[0], 2) for b in baselines],
        "verify_wall_seconds": [round(v[0], 2) for v in verifies],
        "ratio_wall": round(wall / base, 2),
        "suite_in_process_cpu_seconds": round(base_cpu, 2),
        "verify_cpu_seconds_over_all_suite_runs": round(verify_cpu, 2),
        "ratio_cpu": round(verify_cpu / base_cpu, 2),
        # With the cores free, the runs spread evenly: wall >= CPU / cores.
        "verify_wall_floor_on_idle_cores_seconds": round(verify_cpu / cpus, 2),
        "goal": "verify <= 15 s wall and <= 3 x the in-process suite",
    }
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
