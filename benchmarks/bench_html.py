"""Benchmark: `grade --html` for a batch of 200 submissions: seconds to write the page, and its size.

Run with ``tox -e bench-html`` (or ``python benchmarks/bench_html.py``). The reports are made up
(grading 200 submissions takes minutes and says nothing about the page) but as heavy as real ones
can get: every submission loses the checks of a real mutant's kill set, each failed check carries the
longest messages and shrunk example the feedback keeps, a tenth of them had attempts refused. Two
figures: a fresh interpreter that imports the page's module and writes the page (what ``grade --html``
adds to a run, imports included), and the write alone in a warm interpreter; each three times, wall
and CPU seconds (the CPU figure says what a shared machine's load hides). The goal (issue 15): at most
2 s and at most 5 MB. The figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SECONDS_GOAL, BYTES_GOAL = 2.0, 5_000_000

WRITE = """
import json, sys, time
started = time.perf_counter()
sys.path.insert(0, {here!r})
from bench_html import batch
reports, summary = batch({count})
made, cpu = time.perf_counter(), time.process_time()
from dedup_harness.grade.reports import html
from pathlib import Path
Path({out!r}).write_text(html.render(reports, summary), encoding="utf-8")
print(json.dumps({{"seconds": time.perf_counter() - made, "cpu": time.process_time() - cpu}}))
"""


def batch(count: int, seed: int = 0) -> tuple[list[Any], dict[str, Any]]:
    """``count`` made-up reports, each failing like a real mutant, and their summary."""
    from dedup_harness.core.checks import CHECKS
    from dedup_harness.core.outcome import Outcome
    from dedup_harness.core.runner.result import SuiteResult
    from dedup_harness.grade.diagnosis import load_diagnoser
    from dedup_harness.grade.feedback import EXAMPLE_LIMIT, MESSAGE_LIMIT, Scrubber
    from dedup_harness.grade.grader import GradingOptions, from_result
    from dedup_harness.grade.reports.summary import Outline, summarize
    from dedup_harness.grade.scoring import equal_weights

    rng = random.Random(seed)
    options = GradingOptions(equal_weights(), load_diagnoser())
    kill_sets = [sorted(kills) for kills in options.diagnoser.kill_sets.values()] + [[]]
    reports = []
    for n in range(count):
        lost = set(rng.choice(kill_sets))
        outcomes = {c: Outcome.FAILED if c in lost else Outcome.PASSED for c in CHECKS}
        cases = {c: [_case(c, o, rng, MESSAGE_LIMIT, EXAMPLE_LIMIT)] for c, o in outcomes.items()}
        result = SuiteResult(Path("/nowhere"), outcomes, cases, exitstatus=1 if lost else 0)
        problems = ["attempt: socket.connect(('10.0.0.1', 80)) refused: no network"] if n % 10 == 0 else []
        report = from_result(
            f"submissions/student{n:03d}/dedup.py", result, options, problems=problems, scrub=Scrubber({})
        )
        report.seconds = round(rng.uniform(2, 5), 3)
        reports.append(report)
    return reports, summarize(map(Outline.of, reports))


def _case(check: str, outcome: Any, rng: random.Random, message: int, example: int) -> dict[str, Any]:
    words = " ".join(rng.choice(("document", "paragraph", "'d17'", "expected", "got", "kept")) for _ in range(200))
    failed = str(outcome) == "failed"
    return {
        "nodeid": f"suite/test_x.py::{check}",
        "outcome": str(outcome),
        "error": "VerdictFailed" if failed else "",
        "message": words[:message] if failed else "",
        "verdict": {"differences": [words[:message]], "expected": {}, "got": {}} if failed else None,
        "falsifying": f"Falsifying example: {check}(\n    records={words!r},\n)"[:example] if failed else "",
        "seconds": round(rng.uniform(0.01, 1.5), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="submissions in the batch (default 200)")
    parser.add_argument("--rounds", type=int, default=3, help="times each way is measured (default 3)")
    args = parser.parse_args()
    here = str(Path(__file__).resolve().parent)
    with tempfile.TemporaryDirectory(prefix="dedup-harness-bench-html-") as scratch:
        out = str(Path(scratch, "grades.html"))
        code = WRITE.format(here=here, count=args.count, out=out)
        cold = [json.loads(_run(code)) for _ in range(args.rounds)]
        size = Path(out).stat().st_size
        sys.path.insert(0, here)
        from dedup_harness.grade.reports import html

        reports, summary = batch(args.count)
        warm = []
        for _ in range(args.rounds):
            started, cpu = time.perf_counter(), time.process_time()
            Path(out).write_text(html.render(reports, summary), encoding="utf-8")
            warm.append({"seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu})
    print(f"grade --html, {args.count} submissions ({args.rounds} rounds each; wall s / CPU s)")
    for what, rounds in (("fresh interpreter, imports included", cold), ("warm interpreter", warm)):
        best = min(r["seconds"] for r in rounds)
        each = ", ".join(f"{r['seconds']:.2f}/{r['cpu']:.2f}" for r in rounds)
        verdict = "met" if best <= SECONDS_GOAL else "NOT met"
        print(f"  write the page, {what}: {each}; best {best:.2f} s (goal <= {SECONDS_GOAL:g} s: {verdict})")
    verdict = "met" if size <= BYTES_GOAL else "NOT met"
    print(f"  page size: {size:,} bytes = {size / 1e6:.2f} MB (goal <= {BYTES_GOAL / 1e6:g} MB: {verdict})")


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


if __name__ == "__main__":
    main()
