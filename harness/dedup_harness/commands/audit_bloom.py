"""``dedup-harness audit-bloom TARGET...``: the Bloom sizing regression checks against real filters.

Exit status: 0 when every target delivers what it promises, 1 when one fails a check, 2 when a
target cannot be loaded (an unknown name, a package not installed, a module:Class or file.py:Class
that does not import or cannot be built and driven as a filter).
With ``--compare RECORD`` the question is what changed: 0 when every verdict is the record's, 1 when one
differs (a new release fixed a fault or brought one), 2 when the record cannot be read.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console

from dedup_harness.bloom_audit import datatrove_mask, loading, record, throughput
from dedup_harness.bloom_audit.any_filter import TAKES, Driving
from dedup_harness.bloom_audit.audit import audit
from dedup_harness.bloom_audit.datatrove_mask import BloommaskReport
from dedup_harness.bloom_audit.filters import TARGET_NAMES, AnyFilterTarget, DatatroveTarget, resolve_target
from dedup_harness.bloom_audit.model import AuditReport
from dedup_harness.bloom_audit.record import RecordError
from dedup_harness.bloom_audit.report import (
    print_audit,
    print_bloommask,
    print_changes,
    show,
    summary_table,
    throughput_table,
    to_json,
)
from dedup_harness.bloom_audit.target import AuditTarget, TargetError
from dedup_harness.bloom_audit.testing import audit_own
from dedup_harness.bloom_audit.throughput import Throughput
from dedup_harness.commands.arguments import non_negative_int
from dedup_harness.commands.consoles import table_console
from dedup_harness.commands.extras import MissingExtra, require
from dedup_harness.commands.outputs import OutputError, Outputs, fail
from dedup_harness.commands.progress import Progress

HELP = "audit Bloom filters (the reference, datatrove and the packages people install, or module:Class)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "targets",
        nargs="*",
        metavar="TARGET",
        help=f"one of {', '.join(TARGET_NAMES)}, or {loading.FORMS} (your own filter; see --takes)",
    )
    own = parser.add_argument_group("your own filter (module:Class or path/to/file.py:Class)")
    own.add_argument(
        "--takes",
        choices=tuple(TAKES),
        default="rate",
        help=f"how it is built: rate, {TAKES['rate']} (the default); bits, {TAKES['bits']}",
    )
    own.add_argument("--index", metavar="NAME", help="its index function (item -> bit positions), if not bit_indexes")
    own.add_argument(
        "--bits",
        metavar="NAME",
        help="the attribute holding its bits (bits, store.array), if the audit should not look",
    )
    parser.add_argument("--all", action="store_true", help="audit every built-in target, side by side")
    parser.add_argument(
        "--compare",
        metavar="RECORD",
        help="say which verdicts changed against a recorded --json document (docs/bloom-audit.json)",
    )
    parser.add_argument(
        "--throughput",
        metavar="N",
        type=non_negative_int,
        help=f"measure inserts and queries per second at capacity N and p = {throughput.RATE:g}"
        f" (default {throughput.ITEMS:,} with --all, otherwise not measured; 0: not measured)",
    )
    parser.add_argument("--json", metavar="FILE", help="write the audit as one JSON document to FILE ('-' for stdout)")
    parser.add_argument(
        "--html", metavar="FILE", help="write the audit as a self-contained HTML page with plots to FILE"
    )
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="seed for the generated items (default 0)")


def run(args: argparse.Namespace) -> int:
    names = [*TARGET_NAMES, *(t for t in args.targets if t not in TARGET_NAMES)] if args.all else args.targets
    if not names:
        return fail("audit-bloom", TargetError("name a TARGET, or give --all"))
    items = args.throughput if args.throughput is not None else throughput.ITEMS if args.all else 0
    with Outputs("audit-bloom") as outputs:
        try:
            if args.html:
                require("html", "--html")
            outputs.file("--json", args.json)
            outputs.file("--html", args.html)
            recorded = record.load(Path(args.compare)) if args.compare else None
            driving = _driving(args, names)
            targets = [resolve_target(spec, driving) for spec in names]
            reports, mask_report = _audit(targets, args.seed)
        except (MissingExtra, TargetError, OutputError, RecordError) as exc:
            return fail("audit-bloom", exc)
        speeds = _throughput(targets, items, args.seed)
        changes = record.changes(recorded, reports) if recorded is not None else None
        if args.json:
            outputs.put("--json", json.dumps(to_json(reports, mask_report, speeds, changes), indent=2) + "\n")
        if args.html:
            from dedup_harness.bloom_audit import html  # matplotlib and Jinja2: imported only when a page is asked for

            outputs.put("--html", html.render(reports, mask_report, speeds))
        try:
            outputs.commit()
        except OutputError as exc:
            return fail("audit-bloom", exc)
    # The tables are for people: on stdout, unless stdout carries the JSON. Wide enough for the table
    # when piped into a log; a terminal keeps its own width.
    console = table_console(stderr=outputs.stdout, log_width=180)
    _print(console, reports, mask_report, speeds)
    if changes is not None:
        print_changes(console, args.compare, changes)
        return 1 if changes else 0
    return 0 if all(report.passed for report in reports) else 1


def _driving(args: argparse.Namespace, names: list[str]) -> Driving:
    """How a module:Class target is built and read; refused when no such target is named."""
    given = [f"--{option}" for option in ("index", "bits") if getattr(args, option)]
    given += ["--takes"] if args.takes != "rate" else []
    if given and not any(loading.is_spec(name) for name in names if name not in TARGET_NAMES):
        verb = "applies" if len(given) == 1 else "apply"
        raise TargetError(f"{' and '.join(given)} {verb} only to a filter named {loading.FORMS}, and none is named")
    return Driving(args.takes, args.index, args.bits)


def _print(
    console: Console, reports: list[AuditReport], mask_report: BloommaskReport | None, speeds: list[Throughput]
) -> None:
    for report in reports:
        print_audit(console, report)
    if mask_report is not None:
        print_bloommask(console, mask_report)
    if len(reports) > 1:
        show(console, summary_table(reports))
    if speeds:
        show(console, throughput_table(speeds))


def _throughput(targets: list[AuditTarget], items: int, seed: int) -> list[Throughput]:
    if not items:
        return []
    with Progress("audit-bloom") as progress:
        progress.phase(f"inserts and queries per second at n = {items:,}", total=len(targets))
        speeds = []
        for target in targets:
            speeds.append(throughput.measure(target, items, seed=seed))
            progress.finished(target.name)
    return speeds


def _audit(targets: list[AuditTarget], seed: int) -> tuple[list[AuditReport], BloommaskReport | None]:
    reports: list[AuditReport] = []
    mask_report: BloommaskReport | None = None
    with Progress("audit-bloom") as progress:
        for target in targets:
            cases = target.cases()
            progress.phase(f"auditing {target.name}", total=len(cases))
            if isinstance(target, AnyFilterTarget):  # the caller's: under the fixed hash seed, as the API audits it
                reports.append(audit_own(target, target.name, seed=seed))
            else:
                reports.append(audit(target, seed=seed, cases=cases, on_case=lambda c: progress.finished(c.label)))
            if isinstance(target, DatatroveTarget):
                mask_report = datatrove_mask.build_report(target.module)
    return reports, mask_report
