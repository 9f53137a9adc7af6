"""verify's reports: the terminal table (rich), our JSON document, and Markdown for a CI job summary.

In every view a cell is one (target, check) outcome: ``K`` killed (an assertion failed), ``.`` passed,
``E`` error (import, collection, crash), ``T`` timeout, blank when the target never ran. A cell in
brackets is an expected killer: a check the mutant's catalogue entry names.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from dedup_harness import __version__
from dedup_harness.core.outcome import Outcome
from dedup_harness.verify.matrix import Matrix, Row
from dedup_harness.verify.targets import Kind

JSON_SCHEMA = "dedup-harness/verify/1"
SYMBOL = {Outcome.FAILED: "K", Outcome.PASSED: ".", Outcome.ERROR: "E", Outcome.TIMEOUT: "T"}


def cell(row: Row, check: str) -> str:
    outcome = row.outcome(check)
    text = " " if outcome is None else SYMBOL[outcome]
    return f"[{text}]" if check in row.target.expected and row.target.kind is Kind.MUTANT else text


def _style(row: Row, check: str) -> str:
    outcome = row.outcome(check)
    if row.target.kind is Kind.REFERENCE:
        return "green" if outcome is Outcome.PASSED else "bold red"
    if row.target.kind is Kind.MUTANT and check in row.target.expected:
        return "bold green" if outcome is Outcome.FAILED else "bold red"
    return {Outcome.FAILED: "yellow", Outcome.PASSED: "dim", None: ""}.get(outcome, "magenta")


def shown_rows(matrix: Matrix) -> list[Row]:
    """The rows of the table: the reference, the mutants and any extra targets (the canary is a line)."""
    return [row for row in matrix.rows if row.target.kind is not Kind.CANARY]


def verdict(row: Row) -> str:
    if row.result is None:
        return "no diff"
    if row.broken:
        return "broken"
    if row.target.kind is Kind.REFERENCE:
        return "passes" if set(row.result.outcomes.values()) == {Outcome.PASSED} else "FAILS"
    if row.target.kind is Kind.MUTANT:
        missed = [c for c in row.target.expected if row.outcome(c) is not Outcome.FAILED]
        return "SURVIVES" if missed else "killed"
    return f"fails {len(row.kills())}"


def render_terminal(matrix: Matrix, console: Console) -> None:
    """The matrix, the check legend with kill counts, and the findings, for a person."""
    # No padding: each check's cell is three characters, centred (" K ", "[K]"), which keeps the cells apart
    # and the table within 80 columns; the columns either side of the checks bring their own space.
    table = Table(
        title="kill matrix: K killed, . passed, E error, T timeout; [ ] expected killer",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 0),
        pad_edge=False,
        show_edge=False,
    )
    table.add_column("target ", no_wrap=True)
    for n in range(1, len(matrix.checks) + 1):
        table.add_column(str(n), justify="center", min_width=3, no_wrap=True)
    table.add_column(" verdict", no_wrap=True)
    table.add_column("   s", justify="right", no_wrap=True)
    for row in shown_rows(matrix):
        cells = [Text(cell(row, check), style=_style(row, check)) for check in matrix.checks]
        seconds = f"{row.result.seconds:.1f}" if row.result else ""
        table.add_row(f"{row.target.name} ", *cells, f" {verdict(row)}", seconds)
    console.print(table)
    legend = Table(title="checks", title_justify="left", box=box.SIMPLE_HEAD)
    legend.add_column("#", justify="right")
    legend.add_column("check")
    legend.add_column("kills", justify="right")
    counts = matrix.kill_counts()
    for n, check in enumerate(matrix.checks, start=1):
        legend.add_row(str(n), check, Text(str(counts[check]), style="bold red" if not counts[check] else ""))
    console.print(legend)
    for line in findings(matrix):
        console.print(line, markup=False, highlight=False)


def findings(matrix: Matrix) -> list[str]:
    """The lines under the table: the canary, the breaches, mutants alike, idle checks."""
    canary = next((row for row in matrix.rows if row.target.kind is Kind.CANARY), None)
    lines = []
    if canary is not None and canary.result is not None:
        failing = len(canary.kills())
        lines.append(f"canary: {failing} of {len(matrix.checks)} checks fail on the always-wrong target")
    if not matrix.mutant_rows():
        lines.append("verify stopped at the canary: a suite that cannot fail proves nothing about the mutants")
    for names in matrix.identical_kill_sets():
        lines.append(f"identical kill sets (the suite cannot tell these apart): {', '.join(names)}")
    if matrix.idle_checks() and matrix.kill_sets():
        lines.append(f"checks that kill no mutant: {', '.join(matrix.idle_checks())}")
    if matrix.breaches:
        lines.append(f"{len(matrix.breaches)} breach(es):")
        lines.extend(f"  {breach.line()}" for breach in matrix.breaches)
    else:
        lines.append(
            "no breach: the reference and the external sort pass every check; "
            "every mutant fails the checks that name it"
        )
    return lines


def to_json(matrix: Matrix) -> dict[str, Any]:
    """Our machine-readable document (schema in docs/verify-json.md)."""
    return {
        "schema": JSON_SCHEMA,
        "version": __version__,
        "ok": matrix.ok,
        "checks": list(matrix.checks),
        "targets": [_target_json(row) for row in matrix.rows],
        "breaches": [
            {"kind": str(b.kind), "target": b.target, "check": b.check, "detail": b.detail} for b in matrix.breaches
        ],
        "kill_counts": matrix.kill_counts(),
        "identical_kill_sets": matrix.identical_kill_sets(),
        "idle_checks": matrix.idle_checks(),
        "kill_matrix": {"measured": dict(sorted(matrix.kill_sets().items())), "committed": matrix.committed},
    }


def _target_json(row: Row) -> dict[str, Any]:
    target, result = row.target, row.result
    mutant = target.mutant
    return {
        "name": target.name,
        "kind": str(target.kind),
        "title": target.title,
        "pitfall": mutant.pitfall if mutant else None,
        "root": str(target.root) if target.kind in (Kind.REFERENCE, Kind.TARGET) and target.root else None,
        "expected_failures": list(target.expected),
        "ran": result is not None,
        "broken": row.broken,
        "problem": target.problem or None,
        "outcomes": {check: str(row.outcome(check)) for check in result.outcomes} if result else None,
        "kills": row.kills(),
        "messages": {check: row.message(check) for check in result.outcomes if row.message(check)} if result else {},
        "collection_errors": result.collection_errors if result else [],
        "seconds": round(result.seconds, 3) if result else None,
        "cpu_seconds": result.cpu_seconds if result else None,
    }


def to_markdown(matrix: Matrix) -> str:
    """The matrix and its findings as GitHub-flavoured Markdown (a CI job summary)."""
    status = "✅ verify passed" if matrix.ok else f"❌ verify found {len(matrix.breaches)} breach(es)"
    lines = [f"## {status}", ""]
    numbers = " | ".join(str(n) for n in range(1, len(matrix.checks) + 1))
    lines += [f"| target | {numbers} | verdict |", "|---|" + "---|" * len(matrix.checks) + "---|"]
    for row in shown_rows(matrix):
        cells = " | ".join(
            f"**{cell(row, c).strip()}**" if c in row.target.expected else cell(row, c).strip() or " "
            for c in matrix.checks
        )
        lines.append(f"| {row.target.name} | {cells} | {verdict(row)} |")
    lines += ["", "`K` killed, `.` passed, `E` error, `T` timeout; **bold** in brackets: the expected killer.", ""]
    lines += ["| # | check | kills |", "|---|---|---|"]
    counts = matrix.kill_counts()
    lines += [f"| {n} | `{check}` | {counts[check]} |" for n, check in enumerate(matrix.checks, start=1)]
    lines += [""] + [f"- {line.strip()}" for line in findings(matrix)]
    return "\n".join(lines) + "\n"
