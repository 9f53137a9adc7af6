"""``grade --junit FILE``: JUnit XML, one ``testsuite`` per submission and one ``testcase`` per check.

Written with the standard library's ElementTree: the format needs a handful of elements and no
library does them better. A failed check is a ``failure``; a crash or a timeout is an ``error``.
Timing lives only in the ``time`` attributes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.report import GradeReport, Status
from dedup_harness.grade.scoring import points_text


def render(reports: Sequence[GradeReport]) -> str:
    suites = ET.Element("testsuites", name="dedup-harness grade")
    for report in reports:
        suites.append(_suite(report))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


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
        ("status", str(report.status)),
        ("score", points_text(report.score)),
        ("max_score", points_text(report.max_score)),
        ("fails_like", " ".join(d.mutant for d in report.diagnosis if d.exact)),
    ):
        ET.SubElement(properties, "property", name=name, value=value)
    for check in report.checks:
        case = ET.SubElement(suite, "testcase", classname=report.submission, name=check.name, time="0")
        if check.outcome is Outcome.PASSED or check.feedback is None:
            continue
        tag = "failure" if check.outcome is Outcome.FAILED else "error"
        detail = ET.SubElement(case, tag, message=check.feedback.problems[0], type=str(check.outcome))
        detail.text = check.feedback.text()
    if report.status is Status.HARNESS_ERROR or report.problems:
        ET.SubElement(suite, "system-err").text = "\n".join([*report.problems, report.harness_error]).strip()
    return suite
