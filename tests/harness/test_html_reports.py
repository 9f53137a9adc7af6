"""The --html pages: one file, nothing loaded from elsewhere, every plot there, data escaped, the same bytes twice."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from consumers import judged_catalogue
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.feedback import CheckFeedback
from dedup_harness.grade.report import GradeReport
from dedup_harness.grade.reports import csv_report
from dedup_harness.grade.reports import html as grade_html
from dedup_harness.grade.reports.summary import summarize
from dedup_harness.verify import html as verify_html
from grade_fakes import buggy_report, report

# What would make a page load something: a script or style from a URL, a link, a frame, CSS imports.
EXTERNAL = re.compile(r"""<script[^>]+src=|<link\b|<iframe|<img[^>]+src=["']?https?:|@import|url\(\s*["']?https?:""")


@dataclasses.dataclass(frozen=True)
class RicherFeedback(CheckFeedback):
    """CheckFeedback as another change may grow it: a field the template has never heard of."""

    minimal_failing_case: str = ""


def page_of(reports: list[GradeReport]) -> str:
    return grade_html.render(reports, summarize([csv_report.row(r, "1/1") for r in reports]))


def batch() -> list[GradeReport]:
    attempted = report(
        {CHECKS[0]: Outcome.FAILED},
        name="<script>alert(1)</script>/dedup.py",
        attempts=[f"connect() refused ({CHECKS[0]})"],
    )
    return [report(name="alice/dedup.py"), buggy_report(), attempted]


def assert_self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert EXTERNAL.search(page) is None, EXTERNAL.search(page)


def test_the_grade_page_has_its_three_plots_a_row_and_a_section_per_submission() -> None:
    page = page_of(batch())
    assert_self_contained(page)
    labels = re.findall(r'<svg role="img" aria-label="([^"]+)"', page)
    assert labels == ["score distribution", "failure rate per check", "pitfalls ranked"]
    assert [f'href="#submission-{n}"' in page for n in (1, 2, 3)] == [True] * 3
    assert [f'id="submission-{n}"' in page for n in (1, 2, 3)] == [True] * 3
    assert 'class="sortable" id="submissions-table"' in page


def test_what_a_submission_names_is_escaped_not_markup() -> None:
    page = page_of(batch())
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;/dedup.py" in page


def test_a_refused_attempt_flags_its_submission() -> None:
    page = page_of(batch())
    section = page[page.index('id="attempts"') : page.index('id="submissions"')]
    assert "flagged" in section and "connect() refused" in section


def test_a_field_added_to_check_feedback_shows_without_a_template_change() -> None:
    buggy = buggy_report()
    checks = [
        dataclasses.replace(c, feedback=RicherFeedback(**vars(c.feedback), minimal_failing_case="docs=[Doc('a')]"))
        if c.feedback
        else c
        for c in buggy.checks
    ]
    page = page_of([dataclasses.replace(buggy, checks=checks)])
    assert "<dt>minimal failing case</dt>" in page and "docs=[Doc(&#39;a&#39;)]" in page
    assert "<dt>smallest input</dt>" in page and "<dt>asserts</dt>" in page


def test_the_same_grades_make_the_same_page() -> None:
    assert page_of(batch()) == page_of(batch())


def test_the_verify_page_draws_the_kill_matrix_as_a_heat_map_with_kill_counts(tmp_path: Path) -> None:
    matrix, _ = judged_catalogue(tmp_path)
    page = verify_html.render(matrix)
    assert_self_contained(page)
    assert re.findall(r'<svg role="img" aria-label="([^"]+)"', page) == [
        "kill matrix heat map",
        "kill counts per check",
    ]
    assert page.count("<tr>") >= len(CHECKS) + 16, "a row per check and per target"
    assert "No breach" in page
