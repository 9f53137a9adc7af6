"""``grade --xlsx``: the workbook people print. Every cell is text as the submission named it (no formula runs),
each mutant has its pitfall's words, and LibreOffice prints each sheet one page across, however many rows."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
from test_csv_readers import convert

from dedup_harness.core.checks import REGISTRY
from dedup_harness.grade.reports import sheet
from dedup_harness.grade.reports.model import GradeReport
from grade_fakes import buggy_report, hostile_report, keeps_last_report, report

openpyxl = pytest.importorskip("openpyxl", reason="grade --xlsx needs the xlsx extra: pip install '.[xlsx]'")


def a_class(size: int) -> list[GradeReport]:
    reports = [report(name=f"student{n:03d}/dedup.py") for n in range(size - 3)]
    return [*reports, buggy_report("bob/dedup.py"), keeps_last_report("kim/dedup.py"), hostile_report()]


def test_every_cell_is_text_as_given_and_every_pitfall_has_its_words() -> None:
    book = openpyxl.load_workbook(io.BytesIO(sheet.render(a_class(6))))
    grades, checks = book["grades"], book["checks"]
    assert [c.value for c in grades[1]] == [title for title, _ in sheet.GRADES]
    cells = [cell for row in grades.iter_rows() for cell in row] + [cell for row in checks.iter_rows() for cell in row]
    assert not any(cell.data_type == "f" for cell in cells), "a submission's name ran as a formula"
    names = [row[0].value for row in grades.iter_rows(min_row=2)]
    assert names[0].startswith("=cmd|") and names == sorted(names)
    kim = next(row for row in grades.iter_rows(min_row=2) if row[0].value == "kim/dedup.py")
    assert "s01: keeps the last occurrence" in kim[3].value
    assert [c.value for c in checks[1]] == ["submission", *(str(c.number) for c in REGISTRY)]
    for page in (grades, checks):
        setup = page.page_setup
        assert (setup.orientation, setup.fitToWidth, setup.fitToHeight) == ("landscape", 1, 0)
        assert page.sheet_properties.pageSetUpPr.fitToPage and page.print_title_rows == "$1:$1"


@pytest.mark.parametrize("size", [30, 200])
def test_libreoffice_prints_each_sheet_one_page_across(size: int, tmp_path: Path) -> None:
    """Every page printed holds its sheet's first and last column headers: nothing of a row went to a second page
    across (the header row is repeated on every page, so each page says so)."""
    if shutil.which("pdftotext") is None:
        pytest.skip("no pdftotext here: `apt-get install poppler-utils` (.ci/run does, as root)")
    workbook = tmp_path / "grades.xlsx"
    workbook.write_bytes(sheet.render(a_class(size)))
    pdf = convert(workbook, "pdf", tmp_path)
    pages = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True)
    printed = [page for page in pages.stdout.split("\f") if page.strip()]
    assert len(printed) >= 2
    for page in printed:
        header = page.strip().splitlines()[0].split()
        assert header[0] == "submission" and header[-1] in ("problems", str(len(REGISTRY))), header
