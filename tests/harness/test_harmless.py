"""No text a submission controls can corrupt a report: each format, read by its own reader, shows it as plain text."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from rich.console import Console

from consumers import JUNIT_XSD_ENV, consumer_path
from dedup_harness.distribution.batch_identity import identify
from dedup_harness.grade.reports import csv_report, gradescope, harmless, json_report, junit, terminal
from dedup_harness.grade.reports import html as grade_html
from dedup_harness.grade.reports.model import GradeReport
from dedup_harness.grade.reports.summary import Outline, summarize
from dedup_harness.grade.scoring import equal_weights
from grade_fakes import CONTROLS, MEGABYTE, NASTY, hostile_report, report

# What no report may hold raw: C0 controls (tab and line feed aside), DEL, C1 controls, surrogates, U+202E.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202e]")
BOUND = 250_000  # characters of any one report of the hostile batch: a million-character line is cut


def batch() -> list[GradeReport]:
    return [hostile_report(), report(name="correct/dedup.py")]


def assert_harmless(text: str, where: str) -> None:
    found = RAW.search(text)
    assert found is None, f"{where}: raw {found.group()!r} at {found.start()}"
    text.encode("utf-8")  # no lone surrogate: the file can be written
    assert len(text) < BOUND, f"{where}: {len(text)} characters"


@pytest.mark.parametrize("char", [*CONTROLS, "\x7f", "\x85", "\ud800", "\udfff", "\u202e", "\ufeff", "\uffff"])
def test_each_unsafe_character_becomes_its_visible_escape(char: str) -> None:
    shown = harmless.line(f"a{char}b")
    assert RAW.search(shown) is None and char not in shown
    assert shown.startswith("a\\") and shown.endswith("b")


def test_text_keeps_tabs_and_line_breaks_and_a_line_keeps_neither() -> None:
    assert harmless.text("a\tb\nc\x1b") == "a\tb\nc\\x1b"
    assert harmless.line("a\tb\nc\r") == "a\\tb\\nc\\r"


def test_a_million_character_line_is_cut_to_the_limit_saying_how_long_it_was() -> None:
    cut = harmless.text(f"short\n{MEGABYTE}\nshort")
    lines = cut.split("\n")
    assert [len(line) for line in lines] == [5, harmless.LINE_LIMIT, 5]
    assert lines[1].endswith(f"… [cut: {len(MEGABYTE):,} characters in all]")
    assert len(harmless.text("\n".join([MEGABYTE] * 50))) == harmless.TEXT_LIMIT


def test_harmless_text_comes_back_unchanged() -> None:
    for make in (harmless.text, harmless.line, harmless.cell):
        once = make(NASTY + MEGABYTE)
        assert make(once) == once


@pytest.mark.parametrize("start", ["=", "+", "-", "@"])
def test_a_cell_never_starts_as_a_formula(start: str) -> None:
    assert harmless.cell(f"{start}1+1") == f"'{start}1+1"
    assert harmless.cell("1+1=2") == "1+1=2"


def test_a_json_document_keeps_its_shape_and_loses_its_controls() -> None:
    document = {"a\x1b": [NASTY, 1, None, True, {"b": ("\x07",)}]}
    assert harmless.tree(document) == {"a\\x1b": [harmless.text(NASTY), 1, None, True, {"b": ["\\x07"]}]}


def test_the_terminal_shows_escapes_as_text_and_no_forged_line() -> None:
    console = Console(record=True, width=100, force_terminal=True, color_system="truecolor")
    for graded in batch():
        terminal.print_report(console, graded, show_student_output=True)
    terminal.print_batch(console, batch())
    shown = console.export_text(styles=True)  # with the console's own styling codes: only those may be escapes
    assert_harmless(re.sub(r"\x1b\[[0-9;]*m", "", shown), "terminal")
    assert "\\x1b[2J\\x1b]0;pwned\\x07" in shown
    assert "\nattempt: tried nothing (forged)" not in shown, "a message cannot start a line of its own"


def test_the_json_reports_are_valid_and_hold_no_raw_control() -> None:
    text = json_report.render(batch(), summarize(map(Outline.of, batch())))
    assert_harmless(text, "--json")
    document = json.loads(text)
    assert document["submissions"][0]["student_output"].startswith("\\x1b[2J")
    for graded in batch():
        results = gradescope.render(graded)
        assert_harmless(results, "--gradescope")
        assert json.loads(results)["tests"][0]["name"]


def test_the_junit_file_stays_well_formed_xml_for_every_reader() -> None:
    text = junit.render(batch())
    assert_harmless(text, "--junit")
    root = ET.fromstring(text)
    names = [suite.get("name", "") for suite in root.iter("testsuite")]
    assert names == [harmless.line(r.submission) for r in batch()] and names[0].startswith("=cmd|' /C calc'!A0\\x1b")
    junitparser = pytest.importorskip("junitparser", reason="a test extra: pip install -e '.[test]'")
    xunitparser = pytest.importorskip("xunitparser", reason="a test extra: pip install -e '.[test]'")
    assert junitparser.JUnitXml.fromstring(text).failures == 1
    _, result = xunitparser.parse(io.StringIO(text))
    assert (len(result.failures), len(result.errors)) == (1, 1)


def test_the_junit_file_of_a_hostile_batch_is_valid_under_jenkins_junit_xsd() -> None:
    xmlschema = pytest.importorskip("xmlschema", reason="a test extra: pip install -e '.[test]'")
    xmlschema.XMLSchema(consumer_path(JUNIT_XSD_ENV)).validate(junit.render(batch()))


def test_the_csv_has_one_line_per_row_no_control_and_no_formula() -> None:
    names = [r.submission for r in batch()]
    text = csv_report.render([csv_report.row(r, "1/1") for r in batch()], identify(names, equal_weights()).cells())
    assert_harmless(text, "--csv")
    assert text.count("\n") == 3, "the header and two rows: no cell spans lines"
    rows = list(csv.DictReader(io.StringIO(text)))
    cells: list[Any] = [cell for row in rows for cell in row.values()]
    assert not [cell for cell in cells if cell.startswith(("=", "+", "-", "@"))]
    assert rows[0]["submission"].startswith("'=cmd|")


def test_the_html_page_holds_no_raw_control_and_no_markup_of_the_submission() -> None:
    reports = batch()
    page = grade_html.render(reports, summarize(map(Outline.of, reports)))
    assert_harmless(page, "--html")
    assert "\\x1b]0;pwned\\x07" in page and "=cmd|&#39; /C calc&#39;!A0\\x1b[2J" in page
