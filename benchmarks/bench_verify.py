"""Benchmark: `dedup-harness verify` against one in-process run of the suite, and against its own floor.

Run with ``tox -e bench-verify`` (or ``python benchmarks/bench_verify.py [--rounds N]``). Each round
measures, back to back:

- the baseline: ``pytest.main`` over the suite against the reference in an interpreter that has
  already imported pytest (profile ``ci``), its wall and CPU seconds timed inside the process;
- verify: the whole command, ``dedup-harness verify``, in a fresh process (wall), and the CPU its
  suite runs used (from its ``--json``).

Once, before the rounds, the floor: every target verify runs (built as verify builds them), each
through the suite as verify runs it (its pytest arguments, the ``verify`` profile, the fork
server's imports and corpora made first), in a fresh process with a plugin that sums each check's
CPU seconds (setup, call and teardown of its cases: ``bench_checks.py``'s measure). The floor is
that sum over all targets divided by the cores: what the checks' own work takes, perfectly packed,
with nothing for pytest's start, the forks, the imports or the fork server. CPU seconds do not
stretch with other work on the machine; wall seconds do (the load average is printed).

Goals (issue 33): verify within 10 s on two cores, and within 1.2 times its floor. Printed, not
asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_checks

from dedup_harness.core import profiles
from dedup_harness.core.runner.args import pytest_args
from dedup_harness.core.runner.fork_server import PRELOAD
from dedup_harness.verify.engine import VERIFY_PYTEST_ARGS
from dedup_harness.verify.targets import Layout, build_targets

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


def check_cpu(scratch: Path) -> dict[str, float]:
    """Each target's checks' CPU seconds, its suite run as verify runs it (one fresh process a target)."""
    targets = [t for t in build_targets(Layout(), scratch / "targets") if t.root is not None]
    spill = scratch / "spill"
    spill.mkdir()
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "TMPDIR": str(spill), "DEDUP_BENCH_PRELOAD": ",".join(PRELOAD)}
    cpu = {}
    for target in targets:
        run = scratch / "runs" / target.name
        run.mkdir(parents=True)
        assert target.root is not None
        args = pytest_args(target.root, run / "outcomes.json", check_timeout=60.0, extra=VERIFY_PYTEST_ARGS)
        found = bench_checks.suite_round(str(run), profiles.VERIFY, args=args, env=env, must_pass=False)
        cpu[target.name] = round(sum(found["checks"].values()), 3)
    return cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="measure this many times; report the medians")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    baselines, verifies = [], []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        checks = check_cpu(Path(scratch))
        for _ in range(args.rounds):
            baselines.append(baseline_seconds())
            verifies.append(verify_seconds(scratch))
    base, wall = statistics.median(b[0] for b in baselines), statistics.median(v[0] for v in verifies)
    base_cpu, verify_cpu = statistics.median(b[1] for b in baselines), statistics.median(v[1] for v in verifies)
    floor = sum(checks.values()) / cores
    figures: dict[str, Any] = {
        "cpus": cores,
        # Other work on the machine stretches every wall figure; the CPU figures do not move with it.
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "verify_wall_seconds": [round(v[0], 2) for v in verifies],
        "suite_in_process_wall_seconds": [round(b[0], 2) for b in baselines],
        "ratio_to_the_suite_in_process": round(wall / base, 2),
        "suite_in_process_cpu_seconds": round(base_cpu, 2),
        "verify_cpu_seconds_over_all_suite_runs": round(verify_cpu, 2),
        "check_cpu_seconds_by_target": checks,
        "check_cpu_seconds_over_all_targets": round(sum(checks.values()), 2),
        # The checks' own work spread evenly over the cores, with nothing else: wall >= floor.
        "floor_seconds": round(floor, 2),
        "ratio_to_the_floor": round(wall / floor, 2),
        "goal": f"verify <= {GOAL_SECONDS:g} s wall and <= {GOAL_OVER_FLOOR:g} x its floor",
        "goal_met": wall <= GOAL_SECONDS and wall <= GOAL_OVER_FLOOR * floor,
    }
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
