"""Benchmark: what each check of the suite costs, as CPU seconds and as a share of the whole suite.

Run with ``python benchmarks/bench_checks.py [--rounds N] [--profile ci]``. Each round runs the suite
against the reference in a fresh interpreter (as bench_verify's baseline does) with a small plugin
(``check_times.py``) that times every test's setup, call and teardown in CPU seconds
(``time.process_time``: other work on the machine stretches wall time, not this) and sums them by
check. The medians over the rounds are printed as a table and as JSON. A new check's growth of the
suite is its cost over the cost of the others: the budget issues 13 and 16 set is 10 percent. The
figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any

ROUND = """
import json, sys, time
import pytest
import check_times

times = check_times.CheckTimes()
times.count_inputs()
started = time.process_time()
code = pytest.main(sys.argv[2:], plugins=[times])
with open(sys.argv[1], "w", encoding="utf-8") as out:
    summary = {"total": time.process_time() - started, "checks": times.cpu, "inputs": times.inputs}
    json.dump({**summary, "code": int(code)}, out)
"""
HERE = os.path.dirname(os.path.abspath(__file__))


def suite_args(impl: str | None = None) -> list[str]:
    """pytest's arguments for the suite against ``impl`` (else the reference), as bench_verify's baseline runs it."""
    from dedup_harness.core.paths import SUITE_DIR

    return [
        str(SUITE_DIR),
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        *([f"--impl={impl}"] if impl else []),
        "-c",
        os.devnull,
        f"--rootdir={SUITE_DIR.parent}",
        f"--confcutdir={SUITE_DIR.parent}",
    ]


def suite_round(scratch: str, profile: str, impl: str | None = None) -> dict[str, Any]:
    """One run of the suite (against ``impl``, else the reference): its CPU seconds, each check's (check_times.py),
    and how many inputs each judged (a Hypothesis example is one)."""
    path = os.path.join(scratch, "round.json")
    env = {**os.environ, "DEDUP_HARNESS_PROFILE": profile}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [HERE, env.get("PYTHONPATH", "")]))  # check_times
    command = [sys.executable, "-c", ROUND, path, *suite_args(impl)]
    subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    with open(path, encoding="utf-8") as f:
        found: dict[str, Any] = json.load(f)
    if found["code"] != 0:
        raise SystemExit(f"bench_checks: the suite failed against {impl or 'the reference'}; nothing to measure")
    return found


def one_round(scratch: str, profile: str) -> tuple[float, dict[str, float]]:
    """One run of the suite: (its CPU seconds, each check's CPU seconds)."""
    found = suite_round(scratch, profile)
    return float(found["total"]), {name: float(cpu) for name, cpu in found["checks"].items()}


def measure(rounds: int, profile: str) -> tuple[float, dict[str, float]]:
    """The suite's CPU seconds and each check's, the medians of ``rounds`` runs against the reference.

    benchmarks/check_power.py takes each check's cost from here too."""
    from dedup_harness.core.checks import CHECKS

    with tempfile.TemporaryDirectory() as scratch:
        runs = [one_round(scratch, profile) for _ in range(rounds)]
    total = statistics.median(suite for suite, _ in runs)
    return total, {c: statistics.median(checks.get(c, 0.0) for _, checks in runs) for c in CHECKS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="measure this many times; report the medians")
    parser.add_argument("--profile", default="ci", help="the Hypothesis profile (default ci, as verify's baseline)")
    args = parser.parse_args()
    from dedup_harness.core.checks import CHECKS

    load_before = os.getloadavg()[0]
    total, cost = measure(args.rounds, args.profile)
    checks_total = sum(cost.values())
    # growth: what the check adds to the suite without it (the suite's total less the check's cost)
    print(f"{'#':>3}  {'check':<48} {'CPU s':>7} {'share':>7} {'growth':>7}")
    for number, check in enumerate(CHECKS, start=1):
        share, growth = cost[check] / total, cost[check] / (total - cost[check])
        print(f"{number:>3}  {check:<48} {cost[check]:>7.3f} {share:>7.1%} {growth:>7.1%}")
    print(f"     {'(session: collection, plugins, teardown)':<48} {total - checks_total:>7.3f}")
    print(f"     {'the whole suite':<48} {total:>7.3f}")
    figures = {
        "profile": args.profile,
        "rounds": args.rounds,
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "suite_cpu_seconds": round(total, 3),
        "check_cpu_seconds": {c: round(s, 3) for c, s in cost.items()},
    }
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
