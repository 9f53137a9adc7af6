"""The grade CSV read as it is, with no options, by csv.DictReader, pandas and LibreOffice: the header first, no
formula run. A picture of the file as the spreadsheet shows it is kept as a CI artifact."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.distribution.batch_identity import identify
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.reports import csv_report
from dedup_harness.grade.scoring import weights_from
from grade_fakes import DIAGNOSER, OPTIONS, buggy_report, hostile_report, report

ARTIFACTS = Path(os.environ.get("CI_ARTIFACTS") or Path(__file__).resolve().parents[2] / ".artifacts") / "spreadsheet"
SHEET = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
CONVERT_TIMEOUT = 120  # seconds for one LibreOffice conversion (a cold start takes a few)


def grade_csv(folder: Path) -> tuple[Path, list[dict[str, str]]]:
    """A batch graded out of 100 (points with four places), with a hostile name and message among the rows."""
    options = GradingOptions(weights_from({"total": 100}), DIAGNOSER)
    reports = [
        report(name="alice/dedup.py", options=options),
        report({CHECKS[0]: Outcome.FAILED, CHECKS[1]: Outcome.FAILED}, name="bob/dedup.py", options=options),
        buggy_report("carol/dedup.py"),
        hostile_report("-1+2/dedup.py"),
        hostile_report(),
    ]
    path = folder / "grades.csv"
    batch = identify([r.submission for r in reports], options.weights)
    path.write_text(csv_report.render([csv_report.row(r, "1/1") for r in reports], batch.cells()), encoding="utf-8")
    with path.open(encoding="utf-8", newline="") as f:
        return path, list(csv.DictReader(f))


def test_csv_dictreader_takes_the_first_line_as_the_header(tmp_path: Path) -> None:
    _, rows = grade_csv(tmp_path)
    assert list(rows[0]) == list(csv_report.COLUMNS)
    assert [row["submission"][:5] for row in rows] == ["'-1+2", "'=cmd", "alice", "bob/d", "carol"]
    assert [row["score"] for row in rows if row["submission"] in ("alice/dedup.py", "bob/dedup.py")] == [
        "100",
        "85.7143",
    ]


def test_pandas_reads_the_file_with_no_options(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas", reason="a test extra: pip install -e '.[test]'")
    path, rows = grade_csv(tmp_path)
    frame = pandas.read_csv(path)
    assert list(frame.columns) == list(csv_report.COLUMNS)
    assert list(frame["submission"]) == [row["submission"] for row in rows]
    assert frame["score"].dtype.kind == "f" and frame["score"].max() == 100
    assert set(frame[CHECKS[0]]) <= {str(o) for o in Outcome}


def soffice() -> str:
    found = shutil.which("soffice") or shutil.which("libreoffice")
    if found is None:
        pytest.skip("no LibreOffice here: `apt-get install libreoffice-calc-nogui` (.ci/run does, as root)")
    return found


def convert(path: Path, to: str, folder: Path) -> Path:
    """``path`` opened by LibreOffice with its defaults (no import options) and saved as ``to``."""
    profile = (folder / "profile").as_uri()  # a fresh profile: nobody's settings change the import
    command = [soffice(), "--headless", f"-env:UserInstallation={profile}", "--convert-to", to, "--outdir", str(folder)]
    done = subprocess.run([*command, str(path)], capture_output=True, text=True, timeout=CONVERT_TIMEOUT, check=False)
    converted = folder / f"{path.stem}.{to}"
    assert converted.is_file(), f"LibreOffice wrote no {to}: {done.stdout}{done.stderr}"
    return converted


def sheet_cells(workbook: Path) -> tuple[list[list[str]], int]:
    """The first sheet's rows of cell values as text, and how many of its cells hold a formula."""
    with zipfile.ZipFile(workbook) as book:
        shared = [
            "".join(t.text or "" for t in item.iter(f"{SHEET}t"))
            for item in ET.fromstring(book.read("xl/sharedStrings.xml")).iter(f"{SHEET}si")
        ]
        sheet = ET.fromstring(book.read("xl/worksheets/sheet1.xml"))
    rows, formulas = [], 0
    for row in sheet.iter(f"{SHEET}row"):
        values = [""] * len(csv_report.COLUMNS)  # an empty cell has no element: each cell says where it sits
        for cell in row.iter(f"{SHEET}c"):
            formulas += cell.find(f"{SHEET}f") is not None
            value = cell.findtext(f"{SHEET}v", "")
            values[column_index(cell.get("r", ""))] = shared[int(value)] if cell.get("t") == "s" else value
        rows.append(values)
    return rows, formulas


def column_index(reference: str) -> int:
    """``AB7`` -> 27: the column of a cell reference, from 0."""
    letters = reference.rstrip("0123456789")
    index = 0
    for letter in letters:
        index = index * 26 + ord(letter) - ord("A") + 1
    return index - 1


def test_libreoffice_opens_the_file_as_it_is_and_runs_no_formula(tmp_path: Path) -> None:
    path, rows = grade_csv(tmp_path)
    cells, formulas = sheet_cells(convert(path, "xlsx", tmp_path))
    assert formulas == 0, "a submission's name or message ran as a formula"
    assert cells[0] == list(csv_report.COLUMNS), "the header is the sheet's first row"
    column = csv_report.COLUMNS.index("submission")
    assert [line[column] for line in cells[1:]] == [row["submission"] for row in rows]
    shard, score = csv_report.COLUMNS.index("shard"), csv_report.COLUMNS.index("score")
    assert {line[shard] for line in cells[1:]} == {"1/1"}, "a shard is text, not a date"
    scores = {line[column]: line[score] for line in cells[1:]}
    assert (scores["alice/dedup.py"], scores["bob/dedup.py"]) == ("100", "85.7143")


def test_a_picture_of_the_file_in_the_spreadsheet_is_kept(tmp_path: Path) -> None:
    """The first page LibreOffice prints of a batch as a TA has it: a formula and escape codes among the names."""
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        pytest.skip("no pdftoppm here: `apt-get install poppler-utils` (.ci/run does, as root)")
    reports = [
        report(name="alice/dedup.py"),
        buggy_report("bob/dedup.py"),
        report(
            {CHECKS[11]: Outcome.ERROR}, name='=HYPERLINK("http://x","click")/dedup.py', problems=["import: \x1b[2J"]
        ),
        report({CHECKS[0]: Outcome.FAILED}, name="carol/dedup.py"),
    ]
    batch = identify([r.submission for r in reports], OPTIONS.weights)
    path = tmp_path / "grades.csv"
    path.write_text(csv_report.render([csv_report.row(r, "1/1") for r in reports], batch.cells()), encoding="utf-8")
    pdf = convert(path, "pdf", tmp_path)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [pdftoppm, "-png", "-r", "100", "-f", "1", "-l", "1", str(pdf), str(ARTIFACTS / "grades")], check=True
    )
    (picture,) = ARTIFACTS.glob("grades*.png")
    assert picture.stat().st_size > 10_000, "a picture with something on it"
