"""The mutation report: a terminal summary for people, and JSON for machines.

The JSON's schema: docs/mutation.md.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dedup_harness.mutation.equivalents import paste_lines
from dedup_harness.mutation.measure import Fate, MutationReport

SCHEMA = 1


def ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def to_json(report: MutationReport) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "ok": report.ok,
        "mutmut_version": report.mutmut_version,
        "equivalents_file": str(report.equivalents_file),
        "seconds": round(report.seconds, 1),
        "mutmut_seconds": round(report.mutmut_seconds, 1),
        "total": report.total,
        "killed": report.killed,
        "timeouts": report.timeouts,
        "equivalent": report.count(Fate.EQUIVALENT),
        "non_equivalent": report.non_equivalent,
        "survived": report.count(Fate.SURVIVED),
        "errors": report.count(Fate.ERROR),
        "score": {
            "killed_over_total": round(ratio(report.killed, report.total), 4),
            "killed_over_non_equivalent": round(ratio(report.killed, report.non_equivalent), 4),
        },
        "buckets": report.buckets,
        "survivors": [
            {
                "name": s.name,
                "key": s.key,
                "status": s.status,
                "rerun": str(s.rerun),
                "verdict": str(s.verdict),
                "reason": s.reason,
                "diff": s.diff,
            }
            for s in report.survivors
        ],
        "stale_equivalents": report.stale_equivalents,
    }


def colored_diff(diff: str) -> Text:
    """The diff line by line, removed lines red and added ones green; never cropped (soft wrap)."""
    text = Text()
    for line in diff.splitlines():
        style = "red" if line.startswith("-") else "green" if line.startswith("+") else ""
        text.append(line + "\n", style=style)
    return text


def render_terminal(report: MutationReport, console: Console) -> None:
    summary = Table(title="mutmut over impl/corpus/", show_header=False, title_justify="left")
    summary.add_column(justify="left")
    summary.add_column(justify="right")
    killed, total, non_equivalent = report.killed, report.total, report.non_equivalent
    summary.add_row("mutants", str(total))
    summary.add_row("killed / total", f"{killed}/{total} ({ratio(killed, total):.1%})")
    summary.add_row("killed / non-equivalent", f"{killed}/{non_equivalent} ({ratio(killed, non_equivalent):.1%})")
    summary.add_row("timeouts (counted as killed)", str(report.timeouts))
    summary.add_row("killed only on the full re-run", str(report.count(Fate.KILLED_ON_RERUN)))
    summary.add_row("reviewed equivalent", str(report.count(Fate.EQUIVALENT)))
    summary.add_row("unreviewed survivors", str(report.count(Fate.SURVIVED)))
    summary.add_row("time", f"{report.seconds:.0f}s (mutmut run {report.mutmut_seconds:.0f}s)")
    console.print(summary)
    equivalent = sorted((s for s in report.survivors if s.verdict is Fate.EQUIVALENT), key=lambda s: s.key)
    if equivalent:
        console.print(
            f"\nreviewed equivalent ({report.equivalents_file}):", markup=False, highlight=False, soft_wrap=True
        )
        for survivor in equivalent:
            console.print(f"  {survivor.key}: {survivor.reason}", markup=False, highlight=False, soft_wrap=True)
    for survivor in report.survivors:
        if survivor.verdict in (Fate.SURVIVED, Fate.ERROR):
            heading = f": {survivor.key}  ({survivor.name}, mutmut: {survivor.status}, re-run: {survivor.rerun})"
            console.print(Text.assemble("\n", (str(survivor.verdict), "bold"), heading), soft_wrap=True)
            console.print(colored_diff(survivor.diff), soft_wrap=True)
    unreviewed = [s for s in report.survivors if s.verdict is Fate.SURVIVED]
    if unreviewed:
        console.print(
            f"\n{len(unreviewed)} survivor(s) not reviewed. Kill each with a new input in the check where it "
            f"belongs, or, if no input can tell it from the reference, add its entry to [equivalent] in "
            f"{report.equivalents_file} with a one-line reason:\n",
            markup=False,
            highlight=False,
        )
        for survivor in unreviewed:
            console.print(paste_lines(survivor.key, survivor.diff), markup=False, highlight=False, soft_wrap=True)
    if report.stale_equivalents:
        console.print(
            f"\nnote: {len(report.stale_equivalents)} listed equivalent(s) matched no survivor this run "
            f"(killed now, or the code changed): {', '.join(report.stale_equivalents)}",
            markup=False,
            highlight=False,
        )
