"""Grade reports for people: one table per submission with its feedback, and a batch table.

Everything printed goes through ``harmless`` first (and as ``Text``, never as console markup): a
message with ESC or BEL in it shows ``\\x1b`` and ``\\x07``, and nothing a submission wrote reaches
the terminal as a control sequence. A minimal case that an earlier check already showed is named,
not printed again. The batch table fits the console's width (80 columns at least): paths are
shortened in the middle, lost checks are numbers and each pitfall a mutant's name, with a legend
under the table that says each once. Student output stays out unless asked for
(``--show-student-output``); its size is always said.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.minimize.text import case_text, repeats
from dedup_harness.grade.reports import harmless, words
from dedup_harness.grade.reports.class_view import Group, class_view
from dedup_harness.grade.reports.model import GradeReport, Status, attempts_heading, batch_warning, modules_line
from dedup_harness.grade.scoring import out_of, points_text
from dedup_harness.grade.similarity import Similarity

WARNING_STYLE = "bold white on red"
STYLE = {Outcome.PASSED: "green", Outcome.FAILED: "red", Outcome.ERROR: "magenta", Outcome.TIMEOUT: "yellow"}
BATCH_COLUMNS = ("submission", "score", "status", "lost checks", "pitfall or cause")
WHY_ROOM = 20  # characters of the last column before it wraps: a zero's cause is a phrase
# What a table of show_edge=False adds to its columns' text: a space each side of every column and a
# rule between two.
TABLE_PADDING = 2
NARROWEST_NAME = 16  # characters of a submission's name, however narrow the console


HANGING = "    "  # how much further a wrapped line's continuation is indented than the line itself


def say(console: Console, text: str, style: str = "") -> None:
    """Print ``text`` made harmless, as plain text (a ``[`` in it is never console markup), each line within the
    console's width: a longer one wraps, its continuation indented further (so no part of a line a submission
    wrote can stand at the left edge, passing for a line of the report's own)."""
    lines = [part for line in harmless.text(text).split("\n") for part in fitted(line, max(20, console.width))]
    console.print(Text("\n".join(lines), style=style), soft_wrap=True)


def fitted(line: str, width: int) -> list[str]:
    """``line`` in lines of at most ``width`` characters, continuations indented past its own indent."""
    if len(line) <= width:
        return [line]
    indent = line[: len(line) - len(line.lstrip(" "))] + HANGING
    return textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False, drop_whitespace=True) or [line]


def print_warning(console: Console, warning: str) -> None:
    """A run graded without isolation says so before anything else."""
    if warning:
        say(console, f"WARNING: {warning}", WARNING_STYLE)


def print_report(
    console: Console, report: GradeReport, *, show_student_output: bool = False, show_protections: bool = True
) -> None:
    """One submission's report. ``show_protections``: the tier and each protection in force, for staff; a
    student's own run (``check``) has none to show."""
    print_warning(console, report.warning)
    say(console, modules_line(report), "dim")
    score = f"{points_text(report.score)} / {points_text(report.max_score)}"
    say(console, f"{harmless.line(report.submission)}: {score}", "bold")
    if report.status is Status.HARNESS_ERROR:
        say(console, f"HARNESS ERROR (not the submission's fault): {report.harness_error}", "bold red")
    for problem in report.problems:
        say(console, f"problem: {harmless.line(problem)}", "red")  # one line each: none passes for another
    if report.unjudged:
        say(console, harmless.line(report.unjudged), "magenta")
    for diagnosis in report.diagnosis:
        say(console, diagnosis.line(), "yellow")
    console.print(_check_table(report))
    if report.status is Status.GRADED:
        _print_feedback(console, report)
    heading = attempts_heading(report)
    if heading:
        say(console, f"attempts ({heading}):", "magenta")
    for attempt in report.attempts:
        say(console, f"attempt: {harmless.line(attempt)}", "magenta")
    if report.protections and show_protections:
        _print_protections(console, report)
    if show_student_output and report.student_output:
        say(console, "student output:", "bold")
        say(console, report.student_output)
    elif report.student_output:
        say(console, f"({len(report.student_output)} characters of student output captured; --show-student-output)")
    console.print()


def _check_table(report: GradeReport) -> Table:
    table = Table(show_edge=False)
    for column in ("#", "check", "outcome", "points"):
        table.add_column(column, justify="right" if column in ("#", "points") else "left")
    for check in report.checks:
        outcome = Text(str(check.outcome), style=STYLE[check.outcome])
        table.add_row(str(check.number), check.name, outcome, out_of(check.score, check.max_score))
    return table


def _print_feedback(console: Console, report: GradeReport) -> None:
    """Each lost check's feedback; a minimal case an earlier check showed is named, not printed again."""
    same = repeats([(c.number, c.feedback.minimal_case if c.feedback else None) for c in report.checks])
    for check in report.checks:
        if check.feedback:
            say(console, f"{check.number}. {check.name} ({check.outcome})", "bold")
            said = check.feedback.text(same_case_as=same.get(check.number), width=console.width - 5)
            say(console, textwrap.indent(said, "    "))


def _print_protections(console: Console, report: GradeReport) -> None:
    said = words.protections(report.protections)
    say(console, f"protections: {said.tier}")
    for line in said.in_force:
        say(console, f"  - {line}")
    for line in said.missing:
        say(console, f"  - not in force: {line}", "yellow")


def print_batch(console: Console, reports: Sequence[GradeReport]) -> None:
    """The batch table within the console's width, then a legend of the lost checks and the pitfalls."""
    print_warning(console, batch_warning(reports))
    folder = common_folder([harmless.line(r.submission) for r in reports])
    if folder:
        say(console, f"submissions under {folder}")
    cells = [
        [
            harmless.line(r.submission)[len(folder) :],
            out_of(r.score, r.max_score),
            str(r.status),
            words.ranges(words.lost_numbers(r)),
            harmless.line(words.verdict_words(r)),
        ]
        for r in reports
    ]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(BATCH_COLUMNS)]
    widths[-1] = min(widths[-1], max(WHY_ROOM, len(BATCH_COLUMNS[-1])))  # it wraps past that
    others = sum(widths[1:])
    room = max(NARROWEST_NAME, console.width - others - TABLE_PADDING * len(BATCH_COLUMNS) - len(BATCH_COLUMNS) + 1)
    table = Table(title="grades", show_edge=False)
    for column, width in zip(BATCH_COLUMNS, widths, strict=True):
        last = column == BATCH_COLUMNS[-1]  # it wraps: a zero's cause is a phrase
        table.add_column(
            column,
            justify="right" if column == "score" else "left",
            no_wrap=not last,
            max_width=width if last else None,
        )
    for name, *rest in cells:
        table.add_row(Text(shortened(name, room)), *map(Text, rest))  # Text: a name's "[" is not markup
    console.print(table)
    _print_legend(console, reports)
    _print_groups(console, class_view(reports).groups, folder)


GROUP_NAMES = 5  # students named per group; the table lists them all


def print_copies(console: Console, copies: Similarity) -> None:
    """``grade --similarity`` for staff: the clusters the pairs tie together, then the pairs most alike first,
    a line each (the first PAIRS_SHOWN; --html and --json hold them all, with their passages)."""
    folder = common_folder([harmless.line(name) for name in copies.compared])
    found = f"{len(copies.pairs)} pair(s)" if copies.pairs else "no pair"
    say(console, f"copies: {found} at least {copies.threshold:.0%} alike (--html and --json show the passages)", "bold")
    width = max(40, console.width - 1)

    def shown(name: str) -> str:
        return harmless.line(name).removeprefix(folder)

    for members in copies.clusters():
        line = f"{len(members):>3} alike: {', '.join(map(shown, members))}"
        say(console, textwrap.fill(line, width, subsequent_indent=" " * 5))
    for pair in copies.pairs[:PAIRS_SHOWN]:
        line = f"{pair.similarity:>5.0%}  {shown(pair.left)} ~ {shown(pair.right)} ({len(pair.passages)} passage(s))"
        say(console, textwrap.fill(line, width, subsequent_indent=" " * 7))
    if len(copies.pairs) > PAIRS_SHOWN:
        say(console, f"  ... and {len(copies.pairs) - PAIRS_SHOWN} more pairs (--html, --json)")
    for _, why in copies.not_compared:
        say(console, textwrap.fill(f"not compared: {harmless.line(why)}", width, subsequent_indent="  "), "dim")


PAIRS_SHOWN = 20


def _print_groups(console: Console, groups: Sequence[Group], folder: str) -> None:
    """The class by what went wrong, largest group first: how many, how, who, and a minimal case they share."""
    say(console, "the class by what went wrong, largest group first:", "bold")
    width = max(40, console.width - 1)
    for group in groups:
        names = [harmless.line(e.report.submission)[len(folder) :] for e in group.entries]
        more = f" and {len(names) - GROUP_NAMES} more" if len(names) > GROUP_NAMES else ""
        say(console, textwrap.fill(f"{len(names):>3}  {group.words}", width, subsequent_indent=" " * 5))
        who = ", ".join(names[:GROUP_NAMES]) + more
        say(console, textwrap.fill(who, width, initial_indent=" " * 5, subsequent_indent=" " * 5), "dim")
        if group.case is not None and group.case_check is not None:
            whose = "a case they share" if len(names) > 1 else "its smallest failing case"
            check = group.case_check
            shown = f"{whose} ({check.number}. {check.name}):\n{case_text(group.case, console.width - 6)}"
            say(console, textwrap.indent(shown, " " * 5))


def _print_legend(console: Console, reports: Sequence[GradeReport]) -> None:
    checks = words.check_legend(reports)
    if checks:
        say(console, "lost checks, by number:", "bold")
        for number, name in checks:
            say(console, f"  {number:>2}  {name}")
    pitfalls = words.pitfall_legend(reports)
    if pitfalls:
        say(console, "pitfalls: the mutant whose bug the failures show (a+b: two together):", "bold")
        for mutant, pitfall in pitfalls:
            say(console, textwrap.fill(f"  {mutant}  {pitfall}", max(40, console.width - 1), subsequent_indent=" " * 7))


def common_folder(names: Sequence[str]) -> str:
    """The folder every name lies under, with its trailing slash, when there are two names or more; else ""."""
    if len(names) < 2:
        return ""
    folder = os.path.commonpath(names) if len({name.startswith("/") for name in names}) == 1 else ""
    return folder + "/" if folder and folder != "/" and all(n.startswith(folder + "/") for n in names) else ""


def shortened(name: str, width: int) -> str:
    """``name`` within ``width`` characters, cut in the middle: a path's start and its end (the file) stay."""
    if len(name) <= width:
        return name
    tail = (width - 1) * 2 // 3  # the end tells submissions apart more often than the start
    return f"{name[: width - 1 - tail]}…{name[len(name) - tail :]}"
