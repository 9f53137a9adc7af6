"""``grade --junit FILE``: JUnit XML, one ``testsuite`` per submission and one ``testcase`` per check.

Written with the standard library's ElementTree: the format needs a handful of elements and no
library does them better. A failed check is a ``failure``; a crash or a timeout is an ``error``.
Timing lives only in the ``time`` attributes: a testcase's is how long the check's cases ran.

What the readers need, checked against them in the tests: the root ``testsuites`` carries the totals
(tests, failures, errors, time; Jenkins' junit-10.xsd allows no ``skipped`` there, and grading skips
nothing, so each ``testsuite`` says ``skipped="0"``); property names are unique across the whole file,
because readers such as xunitparser merge every suite's properties into one table. Every text and
attribute goes through ``harmless`` once the tree is built: the file stays well-formed XML 1.0 whatever
a submission wrote.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from dedup_harness.core.outcome import Outcome
from dedup_harness.core.provenance import here
from dedup_harness.grade.reports import harmless
from dedup_harness.grade.reports.csv_report import pitfalls_cell
from dedup_harness.grade.reports.model import GradeReport, Status, attempts_heading, batch_warning
from dedup_harness.grade.scoring import points_text

TOTALS = ("tests", "failures", "errors")


def render(reports: Sequence[GradeReport]) -> str:
    suites = ET.Element("testsuites", name="dedup-harness grade")
    for report in reports:
        suites.append(_suite(report))
    for total in TOTALS:
        suites.set(total, str(sum(int(suite.get(total, "0")) for suite in suites)))
    suites.set("time", f"{sum(float(suite.get('time', '0')) for suite in suites):.3f}")
    _made_harmless(suites)
    ET.indent(suites)
    declaration, _, body = ET.tostring(suites, encoding="unicode", xml_declaration=True).partition("\n")
    warning = harmless.line(batch_warning(reports))
    if warning:  # first, right after the declaration: the run graded without isolation
        body = f"<!-- WARNING: {warning.replace('--', '- -')} -->\n{body}"
    return f"{declaration}\n{body}\n"


def _made_harmless(root: ET.Element) -> None:
    """Every text and attribute value of the tree through ``harmless``: no character XML 1.0 forbids (one NUL
    in a message would make the whole batch's file unreadable to every CI reader), no control character."""
    for element in root.iter():
        if element.text:
            element.text = harmless.text(element.text)
        for name, value in element.attrib.items():
            element.set(name, harmless.line(value))


def _suite(report: GradeReport) -> ET.Element:
    failures = sum(1 for c in report.checks if c.outcome is Outcome.FAILED)
    errors = sum(1 for c in report.checks if c.outcome in (Outcome.ERROR, Outcome.TIMEOUT))
    suite = ET.Element(
        "testsuite",
        name=report.submission,
        tests=str(len(report.checks)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time=f"{report.seconds:.3f}",
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        *([("isolation_warning", report.warning)] if report.warning else []),
        ("status", str(report.status)),
        ("score", points_text(report.score)),
        ("max_score", points_text(report.max_score)),
        ("fails_like", pitfalls_cell([d for d in report.diagnosis if d.exact])),
        ("harness_version", here().version),
        ("dependencies", here().digest),
    ):
        # One property table per file for some readers: the submission's name keeps each name unique.
        ET.SubElement(properties, "property", name=f"{report.submission}: {name}", value=value)
    for check in report.checks:
        case = ET.SubElement(
            suite, "testcase", classname=report.submission, name=check.name, time=f"{check.seconds:.3f}"
        )
        if check.outcome is Outcome.PASSED or check.feedback is None:
            continue
        tag = "failure" if check.outcome is Outcome.FAILED else "error"
        detail = ET.SubElement(case, tag, message=check.feedback.lines[0], type=str(check.outcome))
        detail.text = check.feedback.text()
    if report.status is Status.HARNESS_ERROR or report.problems:
        ET.SubElement(suite, "system-err").text = "\n".join([*report.problems, report.harness_error]).strip()
    heading = attempts_heading(report)
    if heading:
        heading = f"attempts ({heading}):"
        ET.SubElement(suite, "system-out").text = "\n".join([heading, *(f"attempt: {a}" for a in report.attempts)])
    return suite
