"""Grade reports for people: one table per submission with its feedback, and a batch table.

Student output stays out unless asked for (``--show-student-output``); its size is always said.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.report import GradeReport, Status, attempts_source, batch_warning
from dedup_harness.grade.scoring import out_of, points_text

WARNING_STYLE = "bold white on red"
STYLE = {Outcome.PASSED: "green", Outcome.FAILED: "red", Outcome.ERROR: "magenta", Outcome.TIMEOUT: "yellow"}


def print_warning(console: Console, warning: str) -> None:
    """A run graded without isolation says so before anything else."""
    if warning:
        console.print(Text(f"WARNING: {warning}", style=WARNING_STYLE))


def print_report(console: Console, report: GradeReport, *, show_student_output: bool = False) -> None:
    print_warning(console, report.warning)
    score = f"{points_text(report.score)} / {points_text(report.max_score)}"
    console.print(Text(f"{report.submission}: {score}", style="bold"))
    if report.status is Status.HARNESS_ERROR:
        console.print(Text(f"HARNESS ERROR (not the submission's fault): {report.harness_error}", style="bold red"))
    for problem in report.problems:
        console.print(Text(f"problem: {problem}", style="red"))
    if report.unjudged:
        console.print(Text(report.unjudged, style="magenta"))
    for diagnosis in report.diagnosis:
        console.print(Text(diagnosis.line(), style="yellow"))
    table = Table(show_edge=False)
    for column in ("#", "check", "outcome", "points"):
        table.add_column(column, justify="right" if column in ("#", "points") else "left")
    for check in report.checks:
        outcome = Text(str(check.outcome), style=STYLE[check.outcome])
        table.add_row(str(check.number), check.name, outcome, out_of(check.score, check.max_score))
    console.print(table)
    for check in report.checks:
        if check.feedback and report.status is Status.GRADED:
            console.print(Text(f"{check.number}. {check.name} ({check.outcome})", style="bold"))
            console.print(Text(textwrap.indent(check.feedback.text(), "    ")), soft_wrap=True)
    if report.attempts:
        console.print(Text(f"attempts ({attempts_source(report)}):", style="magenta"), soft_wrap=True)
    for attempt in report.attempts:
        console.print(Text(f"attempt: {attempt}", style="magenta"))
    if report.protections:
        console.print(f"protections: the {report.protections.get('tier', '?')} tier")
        for line in [*report.protections.get("in_force", []), *report.protections.get("notes", [])]:
            console.print(f"  - {line}", soft_wrap=True)
        for line in report.protections.get("missing", []):
            console.print(Text(f"  - not in force: {line}", style="yellow"), soft_wrap=True)
    if show_student_output and report.student_output:
        console.print(Text("student output:", style="bold"))
        console.print(Text(report.student_output), soft_wrap=True)
    elif report.student_output:
        console.print(f"({len(report.student_output)} characters of student output captured; --show-student-output)")
    console.print()


def print_batch(console: Console, reports: Sequence[GradeReport]) -> None:
    print_warning(console, batch_warning(reports))
    table = Table(title="grades", show_edge=False)
    table.add_column("submission", overflow="fold")  # a path is worth reading whole
    for column in ("score", "status", "lost checks", "fails like"):
        table.add_column(column, justify="right" if column == "score" else "left")
    for report in reports:
        lost = " ".join(str(c.number) for c in report.checks if c.outcome is not Outcome.PASSED)
        like = " ".join(d.mutant for d in report.diagnosis if d.exact) or "+".join(d.mutant for d in report.diagnosis)
        table.add_row(report.submission, out_of(report.score, report.max_score), str(report.status), lost, like)
    console.print(table)
