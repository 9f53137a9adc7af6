"""docs/bloom-audit.md's results, written from the recorded run (docs/bloom-audit.json), never by hand.

``python tools/bloom_results_page.py docs/bloom-audit.json docs/bloom-audit.md`` rewrites
the page's four tables, each between its marker comments; ``--check`` only says whether the page differs
(exit 1). To record a new run: ``dedup-harness audit-bloom --all --json docs/bloom-audit.json``, then this.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dedup_harness.bloom_audit import record
from dedup_harness.bloom_audit.filter_checks import FAIL
from dedup_harness.bloom_audit.model import AuditReport, CaseReport
from dedup_harness.bloom_audit.report import bits_per_item, number, rate, shown
from dedup_harness.bloom_audit.summary import family_summaries
from dedup_harness.bloom_audit.throughput import Throughput

MODULE = "python tools/bloom_results_page.py"


def begin(name: str) -> str:
    return f"<!-- {name}: written by {MODULE} from docs/bloom-audit.json -->"


def end(name: str) -> str:
    return f"<!-- end of {name} -->"


def _verdict(verdict: str, causes: list[str]) -> str:
    return f"{verdict}: {'; '.join(causes)}" if verdict == FAIL and causes else verdict


def family_table(reports: list[AuditReport], speeds: list[Throughput]) -> str:
    lines = [
        "| library | release | size family | cases | promised | delivered | bits/item: m/n / formula "
        "| reachable bits | verdict |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for report in reports:
        for s in family_summaries(report):
            reachable = "n/a" if s.reachable_fraction is None else f"{s.reachable_fraction:.2g}"
            cells = [s.target, s.version, s.family, str(s.cases), rate(s.promised), rate(s.delivered)]
            cells += [bits_per_item(s), reachable, _verdict(s.verdict, s.causes)]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def faults(reports: list[AuditReport], speeds: list[Throughput]) -> str:
    """Each library's faults (each once, with its first example), then their reproductions."""
    blocks = []
    for report in reports:
        who = f"{report.target} {report.version}"
        lines = [f"- **{who}: {f.cause}** ({f.rows} {_cases(f.rows)}). {f.example}" for f in report.findings]
        lines += [f"- **{who}: {n.cause}** (a direct probe, outside the verdict). {n.example}" for n in report.notes]
        for r in report.reproductions:
            lines += ["", f"Reproduction ({r.target} {r.release}): {r.title}.", "```python", r.code.rstrip(), "```"]
        if lines:
            blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _cases(count: int) -> str:
    return "case" if count == 1 else "cases"


def throughput_table(reports: list[AuditReport], speeds: list[Throughput]) -> str:
    lines = ["| library | sized as | m | k | inserts/s | queries/s |", "|---|---|---:|---:|---:|---:|"]
    for t in speeds:
        inserts, queries = shown(t.inserts_per_second, ",.0f"), shown(t.queries_per_second, ",.0f")
        cells = [f"{t.target} {t.version}", t.how, number(t.m), number(t.k), inserts, queries]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def case_table(reports: list[AuditReport], speeds: list[Throughput]) -> str:
    lines = [
        "| library | case | m | k | reachable | promised | delivered (hits / queries) | verdict |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for report in reports:
        for row in report.rows:
            if not row.control:
                lines.append(_case_line(report, row))
    return "\n".join(lines)


def _case_line(report: AuditReport, row: CaseReport) -> str:
    delivered = (
        "n/a" if row.delivered_rate is None else f"{row.delivered_rate:.3g} ({row.false_positives} / {row.queries})"
    )
    verdict = row.promise_basis if row.verdict == "n/a" else _verdict(row.verdict, row.causes)
    cells = [f"{report.target} {report.version}", row.case, number(row.allocated_bits), number(row.k)]
    cells += [number(row.reachable_bits), rate(row.promised_rate), delivered, verdict]
    return "| " + " | ".join(cells) + " |"


SECTIONS: dict[str, Callable[[list[AuditReport], list[Throughput]], str]] = {
    "the table by size family": family_table,
    "the faults": faults,
    "the throughput table": throughput_table,
    "the table of every case": case_table,
}


def written(page: str, document: dict[str, Any]) -> str:
    """``page`` with each section between its markers written afresh from the record ``document``."""
    reports, speeds = record.reports_of_json(document), record.speeds_of_json(document)
    for name, render in SECTIONS.items():
        head, tail = begin(name), end(name)
        start, stop = page.find(head), page.find(tail)
        if start < 0 or stop < start:
            raise ValueError(f"the page has no section between {head!r} and {tail!r}")
        page = page[:start] + f"{head}\n{render(reports, speeds)}\n" + page[stop:]
    return page


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=MODULE, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("record", type=Path, help="the recorded --json run (docs/bloom-audit.json)")
    parser.add_argument("page", type=Path, help="the page to write (docs/bloom-audit.md)")
    parser.add_argument("--check", action="store_true", help="only say whether the page differs (exit 1)")
    args = parser.parse_args(argv)
    try:
        page = args.page.read_text(encoding="utf-8")
        new = written(page, record.read(args.record))
    except (OSError, ValueError, KeyError, record.RecordError) as exc:
        print(f"{MODULE}: {exc}", file=sys.stderr)
        return 2
    if args.check:
        if new != page:
            print(f"{args.page} differs from what {args.record} gives: run {MODULE} {args.record} {args.page}")
            return 1
        return 0
    args.page.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
