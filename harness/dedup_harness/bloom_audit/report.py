"""How a Bloom audit reads: a rich table per target for people, plain JSON for machines."""

from __future__ import annotations

import textwrap
from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from dedup_harness.bloom_audit.datatrove_mask import BloommaskReport
from dedup_harness.bloom_audit.model import AuditReport, CaseReport
from dedup_harness.bloom_audit.record import Change
from dedup_harness.bloom_audit.reproductions import Reproduction
from dedup_harness.bloom_audit.summary import FamilySummary, family_summaries
from dedup_harness.bloom_audit.throughput import Throughput

VERDICT_STYLE = {"pass": "[green]PASS[/green]", "fail": "[red]FAIL[/red]", "n/a": "[yellow]n/a[/yellow]"}


def show(console: Console, table: Table) -> None:
    """``table`` as it is where the console holds it whole; folded where it does not (an 80-column terminal):
    its title, then each row on lines of its own, its first cell leading and every other one named by its
    column, so no number is cut to fit."""
    if Measurement.get(console, console.options.update_width(10_000), table).maximum <= console.width:
        console.print(table)
        return
    if table.title:
        console.print(table.title)
    headers = [str(column.header) for column in table.columns]
    width = max(40, console.width - 1)
    for row in zip(*(list(column.cells) for column in table.columns), strict=True):
        named = ", ".join(f"{header} {cell}" for header, cell in zip(headers[1:], row[1:], strict=True) if cell != "")
        console.print(textwrap.fill(f"  {row[0]}: {named}", width, subsequent_indent="      "), highlight=False)


def shown(value: float | None, spec: str) -> str:
    """``value`` in the format ``spec``, or n/a when there is none."""
    return "n/a" if value is None else format(value, spec)


def number(value: int | None) -> str:
    return shown(value, ",")


def rate(value: float | None) -> str:
    return shown(value, ".3g")


def _reachable(row: CaseReport) -> str:
    if row.reachable_bits is None:
        return "n/a"
    if row.reachable_how == "rate":  # bounded by the delivered rate where no bits could be read
        return f"<= {row.reachable_bits:,} (rate)"
    prefix = {"all": "", "saturated": "", "at least": ">= "}.get(row.reachable_how, "")
    return f"{prefix}{row.reachable_bits:,}"


def _k(row: CaseReport) -> str:
    return number(row.k) + (" (given)" if row.given_k is not None else "")


def _verdict(row: CaseReport) -> str:
    detail = {"n/a": row.promise_basis, "fail": "; ".join(row.causes)}.get(row.verdict)
    return VERDICT_STYLE[row.verdict] + (f": {detail}" if detail is not None else "")


def case_table(title: str, size_unit: str, rows: list[CaseReport]) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    names = ("family", size_unit, "n", "p asked", "allocated bits", "reachable", "k", "k implied", "promised")
    for name in (*names, "delivered", "verdict"):
        table.add_column(name, justify="left" if name in ("family", "verdict") else "right")
    for row in rows:
        asked = "-" if row.asked_rate is None else f"{row.asked_rate:.3g}"
        cells = [row.family, str(row.size), str(row.capacity), asked, number(row.allocated_bits), _reachable(row)]
        cells += [_k(row), row.implied_k, rate(row.promised_rate), rate(row.delivered_rate), _verdict(row)]
        table.add_row(*cells)
    return table


def print_audit(console: Console, report: AuditReport) -> None:
    shipped = [row for row in report.rows if not row.control]
    controls = [row for row in report.rows if row.control]
    show(console, case_table(f"audit-bloom {report.target}: {report.description}", report.size_unit, shipped))
    if controls:
        title = "control: the same filter with only line 147 reduced by % m (not in the verdict)"
        show(console, case_table(title, report.size_unit, controls))
    if report.findings:
        console.print("[bold]Faults found[/bold] (each once, with the first case that shows it):")
        for finding in report.findings:
            console.print(f"  - {finding.cause} ({finding.rows} of {len(shipped)} cases): {finding.example}")
    if report.notes:
        console.print("[bold]Also found by direct probes[/bold] (outside the sizing checks, not in the verdict):")
        for note in report.notes:
            console.print(f"  - {note.cause}: {note.example}")
    for reproduction in report.reproductions:
        print_reproduction(console, reproduction)
    failed = sum(row.verdict == "fail" for row in shipped)
    status = VERDICT_STYLE[report.status] + (f" ({failed} of {len(shipped)} cases)" if failed else "")
    console.print(f"{report.target}: {status}\n")


def print_reproduction(console: Console, reproduction: Reproduction) -> None:
    """The few lines that show a fault with the library alone (checked against ``reproduction.release``)."""
    release = f" {reproduction.release}" if reproduction.release else ""
    head = f"[bold]Reproduction[/bold] of {reproduction.cause} ({reproduction.target}{release}): {reproduction.title}"
    console.print(head, highlight=False)
    console.print("    " + reproduction.code.rstrip().replace("\n", "\n    "), markup=False, highlight=False)


def bits_per_item(summary: FamilySummary) -> str:
    if summary.bits_per_item is None:
        return "n/a"
    formula = "" if summary.formula_bits_per_item is None else f" / {summary.formula_bits_per_item:.2f}"
    return f"{summary.bits_per_item:.2f}{formula}"


def summary_table(reports: list[AuditReport]) -> Table:
    """Library x size family: promised, delivered, bits per item against the formula, reachable bits, verdict."""
    table = Table(title="audit-bloom: every library by size family (the case furthest above its promise shown)")
    for name in ("library", "family", "cases", "promised", "delivered", "bits/item (m/n / formula)", "reachable"):
        table.add_column(name, justify="left" if name in ("library", "family") else "right")
    table.add_column("verdict")
    for report in reports:
        for s in family_summaries(report):
            causes = f": {'; '.join(s.causes)}" if s.causes else ""
            cells = [f"{s.target} {s.version}", s.family, str(s.cases), rate(s.promised), rate(s.delivered)]
            table.add_row(
                *cells, bits_per_item(s), shown(s.reachable_fraction, ".2g"), VERDICT_STYLE[s.verdict] + causes
            )
    return table


def throughput_table(rows: list[Throughput]) -> Table:
    first = rows[0]
    title = (
        f"inserts and queries per second at n = {first.capacity:,}, p = {first.error_rate:g} (measured once, this run)"
    )
    table = Table(title=title, title_justify="left")
    for name in ("library", "sized as", "m", "k", "inserts/s", "queries/s"):
        table.add_column(name, justify="left" if name in ("library", "sized as") else "right")
    for t in rows:
        speeds = shown(t.inserts_per_second, ",.0f"), shown(t.queries_per_second, ",.0f")
        table.add_row(f"{t.target} {t.version}", t.how, number(t.m), number(t.k), *speeds)
    return table


def print_changes(console: Console, record: str, changes: list[Change]) -> None:
    if not changes:
        console.print(f"Against the record {record}: no verdict changed.")
        return
    console.print(f"[bold]Against the record {record}: {len(changes)} verdicts changed[/bold]")
    for c in changes:
        release = c.after.version if c.before.version == c.after.version else f"{c.before.version} -> {c.after.version}"
        console.print(f"  - {c.target} {release}, {c.case}: {c.before.text} -> {c.after.text}", markup=False)


def print_bloommask(console: Console, report: BloommaskReport) -> None:
    title = "bloommask: the reachable-index law 2 ** popcount(m_bytes) (measured on the installed datatrove)"
    table = Table(title=title, title_justify="left")
    for name in ("m_bytes", "popcount", "reachable (law)", "measured", "allocated bits", "fraction"):
        table.add_column(name, justify="right")
    for row in report.law:
        cells = [row.label, str(row.popcount), f"{row.reachable:,}", number(row.measured), f"{row.allocated:,}"]
        table.add_row(*cells, f"{row.fraction:.2g}")
    show(console, table)
    gap = report.gap
    logged = (
        f"{gap.logged_by_datatrove:.3g} (its log line)" if gap.logged_by_datatrove is not None else "not in its log"
    )
    measured = f"{gap.delivered_measured:.3g} over {gap.queries} fresh items"
    console.print(
        f"logged versus delivered at m_bytes = {gap.m_bytes}, k = {gap.k}, {gap.n} items: "
        f"logged {gap.logged_formula:.2g} by its formula, {logged}; delivered {gap.delivered_formula:.2g} "
        f"by the law, {measured}"
    )
    drops = report.drops
    console.print(
        f"unique documents through datatrove's own run(): {drops.dropped_shipped} of {drops.documents} dropped "
        f"as shipped, {drops.dropped_fixed} with line 147 reduced by % m (its stats count "
        f"{drops.dropped_count_in_stats} dropped)\n"
    )


def to_json(
    reports: list[AuditReport],
    bloommask: BloommaskReport | None,
    throughput: list[Throughput] | None = None,
    changes: list[Change] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"passed": all(r.passed for r in reports), "targets": []}
    out["summary"] = [asdict(s) for report in reports for s in family_summaries(report)]
    out["throughput"] = [asdict(t) for t in throughput or []]
    if changes is not None:
        out["changes"] = [asdict(c) for c in changes]
    for report in reports:
        entry = asdict(report)
        entry["passed"] = report.passed
        for row, data in zip(report.rows, entry["rows"], strict=True):
            data["causes"] = row.causes
        out["targets"].append(entry)
    if bloommask is not None:
        out["bloommask"] = asdict(bloommask)
    return out
