"""``dedup-harness audit-bloom TARGET...``: the Bloom sizing regression checks against real filters.

Exit status: 0 when every target delivers what it promises, 1 when one fails a check, 2 when a
target cannot be loaded (an unknown name, a package not installed, a module:Class that does not import).
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console

from dedup_harness.bloom_audit import datatrove_mask
from dedup_harness.bloom_audit.audit import AuditReport, audit
from dedup_harness.bloom_audit.datatrove_mask import BloommaskReport
from dedup_harness.bloom_audit.filters import TARGET_NAMES, DatatroveTarget, Target, TargetError, resolve_target
from dedup_harness.bloom_audit.report import print_audit, print_bloommask, to_json
from dedup_harness.commands.extras import MissingExtra, require
from dedup_harness.commands.outputs import OutputError, Outputs, fail
from dedup_harness.commands.progress import Progress

HELP = "audit Bloom filters (reference, datatrove, rbloom, pybloom-live, module:Class) for sizing and index faults"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "targets",
        nargs="+",
        metavar="TARGET",
        help=f"one of {', '.join(TARGET_NAMES)}, or module:Class (built as Class(capacity, error_rate))",
    )
    parser.add_argument("--json", metavar="FILE", help="write the audit as one JSON document to FILE ('-' for stdout)")
    parser.add_argument(
        "--html", metavar="FILE", help="write the audit as a self-contained HTML page with plots to FILE"
    )
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="seed for the generated items (default 0)")


def run(args: argparse.Namespace) -> int:
    with Outputs("audit-bloom") as outputs:
        try:
            if args.html:
                require("html", "--html")
            outputs.file("--json", args.json)
            outputs.file("--html", args.html)
            targets = [resolve_target(spec) for spec in args.targets]
        except (MissingExtra, TargetError, OutputError) as exc:
            return fail("audit-bloom", exc)
        reports, mask_report = _audit(targets, args.seed)
        if args.json:
            outputs.put("--json", json.dumps(to_json(reports, mask_report), indent=2) + "\n")
        if args.html:
            from dedup_harness.bloom_audit import html  # matplotlib and Jinja2: imported only when a page is asked for

            outputs.put("--html", html.render(reports, mask_report))
        try:
            outputs.commit()
        except OutputError as exc:
            return fail("audit-bloom", exc)
    # The tables are for people: on stdout, unless stdout carries the JSON. Wide enough for the table
    # when piped into a log; a terminal keeps its own width.
    elsewhere = outputs.stdout
    console = Console(stderr=elsewhere, width=None if sys.stdout.isatty() else 180)
    for report in reports:
        print_audit(console, report)
    if mask_report is not None:
        print_bloommask(console, mask_report)
    return 0 if all(report.passed for report in reports) else 1


def _audit(targets: list[Target], seed: int) -> tuple[list[AuditReport], BloommaskReport | None]:
    reports: list[AuditReport] = []
    mask_report: BloommaskReport | None = None
    with Progress("audit-bloom") as progress:
        for target in targets:
            cases = target.cases()
            progress.phase(f"auditing {target.name}", total=len(cases))
            reports.append(audit(target, seed=seed, cases=cases, on_case=lambda c: progress.finished(c.label)))
            if isinstance(target, DatatroveTarget):
                mask_report = datatrove_mask.build_report(target.module)
    return reports, mask_report
