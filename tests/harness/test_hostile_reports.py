"""A submission that writes control characters everywhere it can, graded for real beside a correct one in one
batch, every output written, each read by its own reader: nothing it wrote corrupts a report.

The hostile code runs only inside the grader, in the tier the grader picks (a machine where no tier
isolates refuses to grade without ``--unisolated``, which this test never passes).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

from chromium import chromium, executable
from consumers import JUNIT_XSD_ENV
from dedup_harness.cli import main
from dedup_harness.core.checks import CHECKS
from dedup_harness.grade.reports import csv_report
from grading_support import hostile_source

SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202e]")  # what no report may hold raw
FORGED = re.compile(r"^attempt: tried nothing", re.MULTILINE)  # the hostile line, were it a line of its own


@dataclass
class Batch:
    status: int
    printed: str  # what the grader wrote on stdout and stderr
    folder: Path

    def output(self, name: str) -> str:
        return (self.folder / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Batch:
    folder = tmp_path_factory.mktemp("hostile-reports")
    for name, source in (("mallory", hostile_source("report_corrupter")), ("correct", None)):
        (folder / name).mkdir()
        if source is None:
            shutil.copyfile(SAMPLES / "correct_different.py", folder / name / "dedup.py")
        else:
            (folder / name / "dedup.py").write_text(source, encoding="utf-8")
    outputs = ["--json", "g.json", "--junit", "g.xml", "--csv", "g.csv", "--html", "g.html", "--gradescope", "gs"]
    printed = io.StringIO()
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        with redirect_stdout(printed), redirect_stderr(printed):
            status = main(["grade", "mallory", "correct", *outputs])
    finally:
        os.chdir(cwd)
    return Batch(status, printed.getvalue(), folder)


def assert_clean(text: str, where: str) -> None:
    found = RAW.search(text)
    assert found is None, f"{where}: raw {found.group()!r} near {text[max(0, found.start() - 60) : found.start()]!r}"
    assert FORGED.search(text) is None, f"{where}: the forged attempt stands on a line of its own"


def test_the_grader_exits_zero_and_prints_nothing_raw(graded: Batch) -> None:
    assert graded.status == 0, graded.printed[-3000:]
    assert_clean(graded.printed, "the terminal")
    assert "\\x1b[2J\\x1b]0;pwned\\x07" in graded.printed or "mallory" in graded.printed


def test_the_json_reports_read_back_with_the_correct_sample_at_full_marks(graded: Batch) -> None:
    text = graded.output("g.json")
    assert_clean(text, "--json")
    reports = {Path(r["submission"]).name: r for r in json.loads(text)["submissions"]}
    assert reports["correct"]["score"] == len(CHECKS) and reports["correct"]["problems"] == []
    mallory = reports["mallory"]
    assert mallory["score"] < len(CHECKS) and mallory["status"] == "graded"
    assert any("\\x1b]0;pwned\\x07" in attempt for attempt in mallory["attempts"]), mallory["attempts"]
    assert "\\x1b[2J" in mallory["student_output"]
    for name in ("mallory", "correct"):
        results = (graded.folder / "gs" / name / "results.json").read_text(encoding="utf-8")
        assert_clean(results, f"--gradescope {name}")
        assert (json.loads(results)["score"] == len(CHECKS)) is (name == "correct")


def test_the_junit_file_is_read_by_every_junit_reader(graded: Batch) -> None:
    text = graded.output("g.xml")
    assert_clean(text, "--junit")
    suites = {s.get("name"): s for s in ET.fromstring(text).iter("testsuite")}
    assert (suites["correct"].get("failures"), suites["correct"].get("errors")) == ("0", "0")
    junitparser = pytest.importorskip("junitparser", reason="a test extra: pip install -e '.[test]'")
    xunitparser = pytest.importorskip("xunitparser", reason="a test extra: pip install -e '.[test]'")
    assert junitparser.JUnitXml.fromstring(text).tests == 2 * len(CHECKS)
    _, result = xunitparser.parse(io.StringIO(text))
    assert result.testsRun == 2 * len(CHECKS)
    xsd = os.environ.get(JUNIT_XSD_ENV)
    if xsd:  # Jenkins' junit-10.xsd, where .ci/run fetched it (test_report_consumers says when it cannot)
        xmlschema = pytest.importorskip("xmlschema", reason="a test extra: pip install -e '.[test]'")
        xmlschema.XMLSchema(xsd).validate(text)


def test_the_csv_reads_as_two_rows_and_no_formula(graded: Batch) -> None:
    text = graded.output("g.csv")
    assert_clean(text, "--csv")
    rows = {row["submission"]: row for row in csv.DictReader(io.StringIO(text))}
    assert list(rows) == ["correct", "mallory"]
    assert rows["correct"]["score"] == str(len(CHECKS))
    assert not [cell for row in rows.values() for cell in row.values() if cell.startswith(("=", "+", "-", "@"))]
    assert list(next(iter(rows.values()))) == list(csv_report.COLUMNS)


def test_the_html_page_opens_clean_in_chromium(graded: Batch) -> None:
    page_text = graded.output("g.html")
    assert_clean(page_text, "--html")
    path = executable()
    if path is None:
        pytest.skip("no Chromium on this machine: `apt-get install chromium` (.ci/run does, as root)")
    with chromium(path) as browser:
        page = browser.open((graded.folder / "g.html").as_uri())
        assert page.errors == [] and [u for u in page.requests if not u.startswith(("file:", "data:"))] == []
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        shown = page.evaluate("document.body.innerText")
    assert_clean(shown, "the page as Chromium shows it")
    assert "\\x1b]0;pwned\\x07" in shown
