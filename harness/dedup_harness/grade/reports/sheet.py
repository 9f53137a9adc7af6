"""``grade --xlsx FILE``: the batch as a spreadsheet for people, set up to print one page across.

The CSV is the machine's file (``merge``, pandas, a gradebook's import): twenty-nine columns, the
batch's identity among them, and no page setup, since a CSV cannot hold one, so a spreadsheet sizes
each column to its longest cell and prints it over many pages across. This workbook holds what a TA
reads and prints: a sheet of one row per submission (its score, the pitfall or why it got nothing,
the checks it lost by number, the problems found before the checks ran), and a sheet of every
check's outcome by number with the checks' names beneath. Each sheet prints landscape, fitted to one
page across (as many down as it takes), its header row repeated on every page and frozen on screen.

Every cell is written as text (``harmless.line`` first): a submission's name that starts with
``=`` is shown, never run as a formula.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.properties import PageSetupProperties
from openpyxl.worksheet.worksheet import Worksheet

from dedup_harness.core.checks import REGISTRY
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.reports import harmless, words
from dedup_harness.grade.reports.csv_report import pitfalls_cell
from dedup_harness.grade.reports.model import GradeReport
from dedup_harness.grade.scoring import points_number

# The grades sheet: (header, width in characters). Wide text wraps within its column.
GRADES = (("submission", 34), ("score", 8), ("out of", 8), ("pitfall, or why 0", 40), ("lost checks", 16),
          ("problems", 60))  # fmt: skip
OUTCOME_WORDS = {Outcome.PASSED: "pass", Outcome.FAILED: "FAIL", Outcome.ERROR: "crash", Outcome.TIMEOUT: "hang"}


def render(reports: Sequence[GradeReport]) -> bytes:
    """The workbook's bytes: the grades sheet, then the checks sheet."""
    book = Workbook()
    grades = book.active
    assert grades is not None
    grades.title = "grades"
    ordered = sorted(reports, key=lambda r: r.submission)
    rows: list[list[str | float]] = [
        [
            r.submission,
            points_number(r.score),
            points_number(r.max_score),
            r.why_zero or pitfalls_cell(r.diagnosis),  # each mutant with its pitfall's words
            words.ranges(words.lost_numbers(r)),
            " | ".join(r.problems),
        ]
        for r in ordered
    ]
    fill(grades, [h for h, _ in GRADES], rows, [w for _, w in GRADES])
    checks = book.create_sheet("checks")
    outcomes: list[list[str | float]] = [[r.submission, *(OUTCOME_WORDS[c.outcome] for c in r.checks)] for r in ordered]
    fill(checks, ["submission", *(str(c.number) for c in REGISTRY)], outcomes, [34, *(6 for _ in REGISTRY)])
    legend = len(outcomes) + 3
    for n, check in enumerate(REGISTRY):
        text(checks.cell(row=legend + n, column=1), f"{check.number}. {check.name}")
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def fill(sheet: Worksheet, header: list[str], rows: list[list[str | float]], widths: list[int]) -> None:
    """The header and the rows, each column ``widths`` characters wide, and the page set up to print one across."""
    for column, (title, width) in enumerate(zip(header, widths, strict=True), start=1):
        text(sheet.cell(row=1, column=column), title).font = Font(bold=True)
        sheet.column_dimensions[get_column_letter(column)].width = width
    for row, values in enumerate(rows, start=2):
        for column, value in enumerate(values, start=1):
            cell = sheet.cell(row=row, column=column)
            if isinstance(value, int | float):
                cell.value = value
            else:
                text(cell, str(value)).alignment = Alignment(wrap_text=True, vertical="top")
    sheet.freeze_panes = "A2"
    sheet.print_title_rows = "1:1"
    sheet.page_setup.orientation = "landscape"
    sheet.page_setup.fitToWidth = 1
    sheet.page_setup.fitToHeight = 0  # as many pages down as the rows take
    sheet.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)


def text(cell: Any, value: str) -> Any:
    """``value`` in ``cell`` as text: escapes for what XML cannot hold, and never a formula."""
    cell.value = harmless.line(value)
    cell.data_type = "s"  # openpyxl reads a string's leading "=" as a formula
    return cell
