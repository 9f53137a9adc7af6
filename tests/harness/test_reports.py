"""The five report formats: exact machine output, the documented schema, Gradescope's shape."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from typing import Any

import jsonschema
import pytest

from dedup_harness.cli import main
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.provenance import here
from dedup_harness.distribution.batch_identity import identify
from dedup_harness.grade.grader import from_sidecar
from dedup_harness.grade.reports import csv_report, gradescope, json_report, junit, names
from dedup_harness.grade.reports import html as grade_html
from dedup_harness.grade.reports.model import Status
from dedup_harness.grade.reports.summary import Outline, summarize
from dedup_harness.grade.scoring import equal_weights
from grade_fakes import OPTIONS, buggy_report, report, suite_result

GRADESCOPE_TEST_KEYS = {"name", "number", "score", "max_score", "status", "output", "output_format", "visibility"}


def test_the_json_report_follows_its_documented_schema() -> None:
    reports = [report(name="a/dedup.py"), buggy_report()]
    document = json.loads(json_report.render(reports, summarize(map(Outline.of, reports))))
    schema = json.loads(json_report.SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.validate(document, schema)
    bob = document["submissions"][1]
    assert bob["score"] == len(CHECKS) - 2 and bob["max_score"] == len(CHECKS)
    assert [c["number"] for c in bob["checks"]] == list(range(1, len(CHECKS) + 1))
    assert bob["checks"][3]["cases"][0]["input"]["bloom_bytes_per_item"] == 0.1
    assert bob["checks"][3]["cases"][0]["case_id"] == "0.1" and bob["checks"][3]["cases"][0]["outcome"] == "failed"
    assert bob["diagnosis"] == [
        {
            "mutant": "s02",
            "pitfall": "compares occurrences only across documents",
            "checks": [CHECKS[3]],
            "exact": False,
        },
        {
            "mutant": "s04",
            "pitfall": "drops every Bloom positive without confirming it",
            "checks": [CHECKS[2]],
            "exact": False,
        },
    ]


def test_gradescope_results_have_the_documented_shape_and_hide_student_output() -> None:
    results = json.loads(gradescope.render(buggy_report()))
    assert {"score", "execution_time", "output", "stdout_visibility", "tests"} <= results.keys()
    assert isinstance(results["execution_time"], (int, float))
    assert results["stdout_visibility"] == "hidden"
    assert [t["number"] for t in results["tests"]] == [str(n) for n in range(1, len(CHECKS) + 1)]
    assert all(t.keys() >= GRADESCOPE_TEST_KEYS for t in results["tests"])
    assert results["score"] == sum(t["score"] for t in results["tests"])
    failed = [t for t in results["tests"] if t["status"] == "failed"]
    assert [t["name"] for t in failed] == [CHECKS[2], CHECKS[3]]
    assert "what differs" in failed[1]["output"]  # the minimal case, beside what was expected
    assert "fails partly like s04" in results["output"]
    assert "debug: hello" not in json.dumps(results)


def test_junit_has_one_suite_per_submission_and_a_failure_per_failed_check() -> None:
    crashed = report({CHECKS[5]: Outcome.ERROR}, name="carol/dedup.py")
    root = ET.fromstring(junit.render([buggy_report(), crashed]))
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["bob/dedup.py", "carol/dedup.py"]
    assert [(s.get("tests"), s.get("failures"), s.get("errors")) for s in suites] == [
        (str(len(CHECKS)), "2", "0"),
        (str(len(CHECKS)), "0", "1"),
    ]
    failures = suites[0].findall("testcase/failure")
    assert [f.get("message") for f in failures][1].startswith("[0.1] the output differs")
    assert suites[1].find("testcase/error") is not None


def test_the_csv_has_a_row_per_submission_in_name_order_and_reads_back() -> None:
    rows = [csv_report.row(r, "2/3") for r in (buggy_report("zed/dedup.py"), report(name="amy/dedup.py"))]
    batch = identify(["amy/dedup.py", "zed/dedup.py"], equal_weights())
    text = csv_report.render(rows, batch.cells())
    assert text.splitlines()[0] == ",".join(csv_report.COLUMNS), "the header is the first line"
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert [r["submission"] for r in parsed] == ["amy/dedup.py", "zed/dedup.py"]
    assert [r["batch"] for r in parsed] == [batch.digest] * 2 and parsed[0]["batch_submissions"] == "2"
    assert parsed[1]["score"] == str(len(CHECKS) - 2)
    assert parsed[1][CHECKS[3]] == "failed" and parsed[1]["shard"] == "2/3"
    summary = summarize(map(Outline.from_row, parsed))
    assert (summary["submissions"], summary["full_marks"], summary["mean_score"]) == (2, 1, len(CHECKS) - 1)
    assert summary["passed_by_check"][CHECKS[3]] == 1


def test_reports_of_the_same_grade_are_identical_text() -> None:
    first, second = buggy_report(), buggy_report()
    second.seconds = 99.0  # timing is the one field allowed to differ; it is not in the CSV
    batch = identify([first.submission], equal_weights())
    assert csv_report.render([csv_report.row(first, "1/1")], batch.cells()) == csv_report.render(
        [csv_report.row(second, "1/1")], batch.cells()
    )
    first_text, second_text = json_report.render([first], {}), json_report.render([second], {})
    assert '"seconds": 1.5' in first_text
    assert first_text.replace('"seconds": 1.5', '"seconds": 99.0') == second_text


def sidecar(*events: dict[str, str]) -> dict[str, Any]:
    return {"static": [], "events": list(events), "protections": {"tier": "landlock"}, "student_output": ""}


def test_every_attempt_is_listed_with_where_it_happened_even_in_a_passed_check() -> None:
    data = sidecar(
        {
            "check": "(before the checks)",
            "kind": "attempt",
            "detail": "tried to reach the network: look up 'x' (refused)",
        },
        {"check": CHECKS[0], "kind": "attempt", "detail": "tried to send signal 9 to other processes (refused)"},
    )
    graded = from_sidecar("eve/dedup.py", suite_result({}), OPTIONS, data, [])
    assert graded.score == len(CHECKS) and graded.problems == []
    assert graded.attempts == [
        "worker's hook: tried to reach the network: look up 'x' (refused) (before the checks)",
        f"worker's hook: tried to send signal 9 to other processes (refused) ({CHECKS[0]})",
    ]
    heading = "What your code tried that the grader does not allow (as the grading worker's own audit hook noted"
    assert heading in gradescope.overview(graded) and "may be incomplete" in gradescope.overview(graded)
    assert json.loads(json_report.render([graded], {}))["submissions"][0]["attempts"] == graded.attempts
    assert "attempt: worker's hook: tried to send signal 9" in ET.fromstring(junit.render([graded])).findtext(
        "testsuite/system-out", ""
    )


def test_the_kernels_refusals_are_listed_apart_from_the_hooks_notes_which_cannot_pass_for_them() -> None:
    """A note of the worker's hook that says "the kernel refused" is still marked as the hook's."""
    data = sidecar(
        {"check": CHECKS[0], "kind": "refused", "detail": "the kernel refused socket(AF_INET, SOCK_STREAM): network"},
        {"check": CHECKS[0], "kind": "attempt", "detail": "the kernel refused kill(pid 1, signal 9): forged"},
    )
    data["protections"]["attempts_from"] = "kernel"
    graded = from_sidecar("eve/dedup.py", suite_result({}), OPTIONS, data, [])
    assert graded.attempts == [
        f"the kernel refused socket(AF_INET, SOCK_STREAM): network ({CHECKS[0]})",
        f"worker's hook: the kernel refused kill(pid 1, signal 9): forged ({CHECKS[0]})",
    ]
    assert "(the kernel's refusals, as the grader saw each call" in gradescope.overview(graded)
    assert "may be incomplete" not in gradescope.overview(graded)
    assert junit.render([graded]).count("the kernel's refusals, as the grader saw each call") == 1


def test_a_worker_that_could_not_start_is_a_harness_error_never_the_submissions_zero() -> None:
    data = sidecar({"check": CHECKS[0], "kind": "sandbox", "detail": "the worker could not start (bubblewrap tier)"})
    graded = from_sidecar("eve/dedup.py", suite_result({CHECKS[0]: Outcome.ERROR}), OPTIONS, data, [])
    assert graded.status is Status.HARNESS_ERROR
    assert graded.harness_error == "the worker could not start (bubblewrap tier)"
    assert "not a verdict on your code" in gradescope.overview(graded)


def test_a_run_without_isolation_says_so_first_in_each_format() -> None:
    warned = report(options=replace(OPTIONS, warning="graded WITHOUT isolation (--unisolated, none tier): all"))
    assert next(iter(json.loads(json_report.render([warned], {})))) == "isolation_warning"
    assert gradescope.overview(warned).startswith("WARNING: graded WITHOUT isolation")
    table = csv_report.render([csv_report.row(warned, "1/1")], identify([warned.submission], equal_weights()).cells())
    assert table.splitlines()[1].startswith('"graded WITHOUT')  # the first cell after the header
    assert junit.render([warned]).splitlines()[1].strip().startswith("<!-- WARNING: graded WITHOUT")
    page = grade_html.render([warned], summarize([Outline.of(warned)]))
    assert page.index('id="warning">WARNING: graded WITHOUT isolation') < page.index('id="summary"')
    quiet = report()
    assert quiet.warning == "" and "WARNING" not in junit.render([quiet]) + gradescope.overview(quiet)


def test_the_gradescope_batch_layout_the_help_describes_is_the_one_grade_writes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["grade", "--help"]) == 0
    described = " ".join(capsys.readouterr().out.split())
    assert "one folder each" in described and "alice/dedup.py -> DIR/alice_dedup.py/" in described
    assert names.safe_name("alice/dedup.py") == "alice_dedup.py"


def test_every_report_names_the_harness_version_and_the_dependency_digest() -> None:
    """A grade is reproducible only within one dependency set: each report says which one graded it."""
    made_by, graded = here(), buggy_report()
    document = json.loads(json_report.render([graded], summarize([Outline.of(graded)])))
    assert document["provenance"] == {
        "version": made_by.version,
        "dependencies": made_by.digest,
        "packages": list(made_by.dependencies),
    }
    assert made_by.digest.startswith("sha256:") and any(p.startswith("hypothesis==") for p in made_by.dependencies)
    results = json.loads(gradescope.render(graded))
    assert results["extra_data"] == {"harness_version": made_by.version, "dependencies": made_by.digest}
    assert results["output"].endswith(f"Graded by {made_by.line()}.")
    properties = {p.get("name"): p.get("value") for p in ET.fromstring(junit.render([graded])).iter("property")}
    assert properties[f"{graded.submission}: harness_version"] == made_by.version
    assert properties[f"{graded.submission}: dependencies"] == made_by.digest
    table = csv_report.render([csv_report.row(graded, "1/1")], identify([graded.submission], equal_weights()).cells())
    (row,) = csv.DictReader(io.StringIO(table))
    assert (row["harness"], row["dependencies"]) == (made_by.version, made_by.digest)
