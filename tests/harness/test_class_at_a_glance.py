"""The class at a glance: each zero says why in one phrase, and the batch summary groups students by what went wrong."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.grader import from_sidecar
from dedup_harness.grade.reports import csv_report, markdown
from dedup_harness.grade.reports.model import GradeReport
from dedup_harness.grade.reports.summary import Outline, summarize
from dedup_harness.grade.worker.categories import PROCESSES
from grade_fakes import OPTIONS, case, keeps_last_report, report, suite_result

EVERY_CHECK = dict.fromkeys(CHECKS, Outcome.ERROR)


def graded(data: dict[str, Any], outcomes: dict[str, Outcome], said: str = "") -> GradeReport:
    cases = {name: [case(name, outcomes[name], said)] for name in outcomes}
    sidecar = {"static": [], "events": [], "refused": {}, "protections": {}, "student_output": "", **data}
    return from_sidecar("eve/dedup.py", suite_result(outcomes, cases), OPTIONS, sidecar)


class TestEachZeroSaysWhy:
    def test_a_problem_found_before_the_checks_is_the_cause_in_its_finders_words(self) -> None:
        static = [{"kind": "syntax", "message": "dedup.py line 12: invalid syntax", "cause": "syntax error (line 12)"}]
        assert graded({"static": static}, EVERY_CHECK, "SubmissionBroken: no").why_zero == "syntax error (line 12)"

    def test_a_refusal_every_check_crashed_on_is_the_cause(self) -> None:
        refused = {check: [PROCESSES] for check in CHECKS}
        zero = graded({"refused": refused}, EVERY_CHECK, "PermissionError: [Errno 13] x")
        assert zero.why_zero == "the grader refused child processes"

    def test_every_check_timing_out_is_timed_out(self) -> None:
        assert graded({}, dict.fromkeys(CHECKS, Outcome.TIMEOUT)).why_zero == "timed out"

    def test_every_check_crashing_names_the_first_error(self) -> None:
        assert (
            graded({}, EVERY_CHECK, "NameError: name 'x' is not defined").why_zero
            == "crashed in every check: NameError"
        )

    def test_a_submission_that_got_points_has_no_cause(self) -> None:
        assert keeps_last_report().why_zero == ""

    def test_the_csv_says_it_beside_the_score(self) -> None:
        zero = graded({}, dict.fromkeys(CHECKS, Outcome.TIMEOUT))
        rows = list(csv.DictReader(io.StringIO(csv_report.render([csv_report.row(zero, "1/1")], {}))))
        assert rows[0]["score"] == "0" and rows[0]["why_zero"] == "timed out"


def class_rows() -> list[dict[str, str]]:
    """Three that keep the last copy, two that time out, one with full marks."""
    reports = [keeps_last_report(f"kim{n}/dedup.py") for n in range(3)]
    reports += [graded({}, dict.fromkeys(CHECKS, Outcome.TIMEOUT)) for _ in range(2)]
    reports += [report({}, name="zoe/dedup.py")]
    return [csv_report.row(r, "1/1") for r in reports]


class TestTheClassByWhatWentWrong:
    def test_groups_come_largest_first_with_their_words_and_students(self) -> None:
        groups = summarize(map(Outline.from_row, class_rows()))["groups"]
        assert [(g["count"], g["kind"]) for g in groups] == [(3, "pitfall"), (2, "zero"), (1, "full marks")]
        assert groups[1]["words"] == "timed out" and groups[0]["submissions"][0] == "kim0/dedup.py"

    def test_a_named_pitfall_is_a_group_in_its_words_and_the_rest_by_the_checks_they_lost(self) -> None:
        rows = class_rows()
        for row in rows[:3]:
            row["fails_like"], row["fails_partly_like"] = "s01: keeps the last occurrence of a paragraph", ""
        assert summarize(map(Outline.from_row, rows))["groups"][0]["words"].startswith(
            "fails like s01: keeps the last occurrence"
        )
        for row in rows[:3]:
            row["fails_like"] = ""
        assert summarize(map(Outline.from_row, rows))["groups"][0]["words"] == "lost checks 1, 2, 4"

    @pytest.mark.parametrize("hostile", ["a|b", "<img src=x onerror=alert(1)>", "*[x](http://e)*", "`x`"])
    def test_the_markdown_summary_escapes_what_a_submission_names(self, hostile: str) -> None:
        rows = class_rows()
        rows[5]["submission"] = hostile
        table = markdown.render(summarize(map(Outline.from_row, rows))).split("### The class by what went wrong")[1]
        last = table.strip().splitlines()[-1]
        who = last.split(" | ")[-1].removesuffix(" |")
        assert last.count(" | ") == 2 and "<img" not in who and not re.search(r"(?<!\\)[\[\]*`|]", who), who
