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
from dedup_harness.paths import SUITE_DIR
os.environ["DEDUP_HARNESS_PROFILE"] = "ci"
started = time.perf_counter()
code = pytest.main([str(SUITE_DIR), "-q", "-p", "no:cacheprovider", "-c", os.devnull, f"--rootdir={SUITE_DIR.parent}"])
print("SECONDS", time.perf_counter() - started, file=sys.stderr)
sys.exit(int(code))
"""


def baseline_seconds() -> float:
    """One in-process run of the suite against the reference, timed inside the process."""
    done = subprocess.run([sys.executable, "-c", BASELINE], capture_output=True, text=True, check=True)
    line = next(line for line in done.stderr.splitlines() if line.startswith("SECONDS"))
    return float(line.split()[1])


def verify_seconds(scratch: str) -> float:
    """The whole `dedup-harness verify` command, wall time."""
    started = time.perf_counter()
    report = os.path.join(scratch, "verify.json")
    subprocess.run(
        [sys.executable, "-m", "dedup_harness.cli", "verify", "--json", report],
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="measure this many times; report the median")
    args = parser.parse_args()
    import statistics
    import tempfile

    baselines, verifies = [], []
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(args.rounds):
            baselines.append(baseline_seconds())
            verifies.append(verify_seconds(scratch))
    base, wall = statistics.median(baselines), statistics.median(verifies)
    figures = {
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "suite_in_process_seconds": [round(s, 2) for s in baselines],
        "verify_wall_seconds": [round(s, 2) for s in verifies],
        "median_suite_in_process_seconds": round(base, 2),
        "median_verify_wall_seconds": round(wall, 2),
        "ratio": round(wall / base, 2),
        "goal": "verify <= 15 s wall and <= 3 x the in-process suite",
    }
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
