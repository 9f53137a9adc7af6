"""``dedup-harness audit-bloom TARGET...``: the Bloom sizing regression checks against real filters.

Exit status: 0 when every target delivers what it promises, 1 when one fails a check, 2 when a
target cannot be loaded (an unknown name, a package not installed, a module:Class that does not import).
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.progress import Progress

from dedup_harness import bloommask
from dedup_harness.bloom_audit import AuditReport, audit
from dedup_harness.bloom_cases import Case
from dedup_harness.bloom_report import print_audit, print_bloommask, to_json
from dedup_harness.bloom_targets import TARGET_NAMES, DatatroveTarget, Target, TargetError, resolve_target

HELP = "audit Bloom filters (reference, datatrove, rbloom, pybloom-live, module:Class) for sizing and index faults"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "targets",
        nargs="+",
        metavar="TARGET",
        help=f"one of {', '.join(TARGET_NAMES)}, or module:Class (built as Class(capacity, error_rate))",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument("--seed", type=int, default=0, help="seed for the generated items (default 0)")


class _Progress:
    """A rich progress bar on a terminal; one plain line per case on stderr otherwise (CI logs, captures)."""

    def __init__(self) -> None:
        self.bar = Progress(console=Console(stderr=True), transient=True) if sys.stderr.isatty() else None

    def __enter__(self) -> _Progress:
        if self.bar is not None:
            self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)

    def run(self, target: Target, seed: int) -> AuditReport:
        cases = target.cases()
        task = self.bar.add_task(f"audit {target.name}", total=len(cases)) if self.bar is not None else None
        done = 0

        def advance(case: Case) -> None:
            nonlocal done
            done += 1
            if self.bar is not None and task is not None:
                self.bar.advance(task)
            else:
                print(f"audit-bloom {target.name}: {done}/{len(cases)} {case.label}", file=sys.stderr)

        return audit(target, seed=seed, cases=cases, on_case=advance)


def run(args: argparse.Namespace) -> int:
    try:
        targets = [resolve_target(spec) for spec in args.targets]
    except TargetError as exc:
        print(f"dedup-harness audit-bloom: {exc}", file=sys.stderr)
        return 2
    reports: list[AuditReport] = []
    mask_report = None
    with _Progress() as progress:
        for target in targets:
            reports.append(progress.run(target, args.seed))
            if isinstance(target, DatatroveTarget):
                mask_report = bloommask.build_report(target.module)
    if args.json:
        print(json.dumps(to_json(reports, mask_report), indent=2))
    else:
        # Wide enough for the table when piped into a log; a terminal keeps its own width.
        console = Console(width=None if sys.stdout.isatty() else 180)
        for report in reports:
            print_audit(console, report)
        if mask_report is not None:
            print_bloommask(console, mask_report)
    return 0 if all(report.passed for report in reports) else 1
