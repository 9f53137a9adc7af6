"""Each machine-readable output read by the tool it is written for: JUnit readers and XSD, Gradescope, Stryker."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from consumers import JUNIT_XSD_ENV, NODE_MODULES_ENV, consumer_path, stryker_report
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.reports import gradescope, junit
from grade_fakes import buggy_report, report

# Gradescope's results.json, as its autograder documentation lists the fields (shared/NOTES.md).
GRADESCOPE_TOP = {
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
}
GRADESCOPE_TEST = {
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}


def batch_junit() -> str:
    crashed = report({CHECKS[5]: Outcome.ERROR}, name="carol/dedup.py")
    return junit.render([report(name="alice/dedup.py"), buggy_report(), crashed])


def test_xunitparser_reads_the_junit_file_with_its_totals_and_unique_property_names() -> None:
    xunitparser = pytest.importorskip("xunitparser", reason="a test extra: pip install -e '.[test]'")
    suite, result = xunitparser.parse(io.StringIO(batch_junit()))  # asserts unique names and the root's totals
    assert result.testsRun == 3 * len(CHECKS)
    assert (len(result.failures), len(result.errors)) == (2, 1)
    assert suite.properties["bob/dedup.py: fails_like"] == ""
    assert suite.properties["carol/dedup.py: score"] == str(len(CHECKS) - 1)


def test_junitparser_reads_every_suite_with_real_times_and_the_root_totals() -> None:
    junitparser = pytest.importorskip("junitparser", reason="a test extra: pip install -e '.[test]'")
    xml = junitparser.JUnitXml.fromstring(batch_junit())
    assert (xml.tests, xml.failures, xml.errors) == (3 * len(CHECKS), 2, 1)
    suites = list(xml)
    assert [s.name for s in suites] == ["alice/dedup.py", "bob/dedup.py", "carol/dedup.py"]
    times = [case.time for case in suites[1]]
    assert times == [check.seconds for check in buggy_report().checks] and min(times) > 0, "each check's own time"
    assert {p.name for p in suites[1].properties()} == {
        f"bob/dedup.py: {k}" for k in ("status", "score", "max_score", "fails_like", "harness_version", "dependencies")
    }


def test_the_junit_file_is_valid_under_jenkins_junit_xsd() -> None:
    xmlschema = pytest.importorskip("xmlschema", reason="a test extra: pip install -e '.[test]'")
    schema = xmlschema.XMLSchema(consumer_path(JUNIT_XSD_ENV))
    schema.validate(batch_junit())


def test_gradescope_results_use_only_the_documented_fields_and_values() -> None:
    results = json.loads(gradescope.render(buggy_report()))
    assert results.keys() <= GRADESCOPE_TOP
    assert results["visibility"] in VISIBILITIES and results["stdout_visibility"] in VISIBILITIES
    assert results["output_format"] in FORMATS
    assert isinstance(results["score"], (int, float)) and isinstance(results["execution_time"], (int, float))
    for test in results["tests"]:
        assert test.keys() <= GRADESCOPE_TEST, test.keys() - GRADESCOPE_TEST
        assert test["status"] in {"passed", "failed"} and test["visibility"] in VISIBILITIES
        assert test["output_format"] in FORMATS and isinstance(test["number"], str)
        assert 0 <= test["score"] <= test["max_score"]


def test_the_stryker_report_is_valid_under_mutation_testing_report_schema(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema_file = consumer_path(
        NODE_MODULES_ENV, "mutation-testing-report-schema/dist/src/mutation-testing-report-schema.json"
    )
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    document = stryker_report(tmp_path)
    jsonschema.validate(document, schema)
    assert document["config"]["mutants"] == 15
    s06 = [m for m in document["files"]["corpus/bloom.py"]["mutants"] if m["id"].split(".")[0] == "s06"]
    assert len(s06) == 1, "s06 patches one line of bloom.py: one entry"
