"""The --html pages: one file, nothing loaded from elsewhere, every plot there, data escaped, the same bytes twice."""

from __future__ import annotations

import re
from pathlib import Path

from consumers import judged_catalogue
from dedup_harness.core.checks import CHECKS, REGISTRY
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.reports import html as grade_html
from dedup_harness.grade.reports.class_view import class_view
from dedup_harness.grade.reports.model import GradeReport
from dedup_harness.grade.reports.summary import Outline, summarize
from dedup_harness.verify import html as verify_html
from grade_fakes import buggy_report, keeps_last_case, keeps_last_report, report

# What would make a page load something: a script or style from a URL, a link, a frame, CSS imports.
EXTERNAL = re.compile(r"""<script[^>]+src=|<link\b|<iframe|<img[^>]+src=["']?https?:|@import|url\(\s*["']?https?:""")


def page_of(reports: list[GradeReport]) -> str:
    return grade_html.render(reports, summarize(map(Outline.of, reports)))


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


def test_the_page_says_in_words_what_the_json_keeps_as_fields() -> None:
    """No data dump: the tier and protections in sentences; shrunk, tries, origin and the raw record stay in --json."""
    page = page_of([keeps_last_report()])
    assert "Protections: the bubblewrap tier." in page
    assert "<li>bubblewrap: new network, pid, ipc and uts namespaces</li>" in page
    for internal in (
        "shrunk",
        "tries",
        "origin",
        "raw input",
        "process namespace",
        "harness files hidden",
        "notes: []",
    ):
        assert internal not in page, internal
    assert "the check&#39;s own input had 3 documents, 64 characters" in page, "the origin, said in words"


def test_a_lost_check_shows_what_it_asserts_and_its_case_once_with_the_differing_rows_marked() -> None:
    page = page_of([keeps_last_report()])
    assert page.count('<table class="case side-by-side">') == 1, "three checks shrunk to one case: shown once"
    assert page.count("Smallest failing case: the same as") == 2
    assert '<a href="#submission-1-check-1">check 1\'s</a>' in page
    assert f"This check asserts: {REGISTRY[0].asserts.replace(chr(39), '&#39;')}." in page
    marked = re.findall(r'<tr class="differs"><td class="mark">!</td><td>([^<]+)</td>', page)
    assert marked == ["out d1", "out d2"], "the two documents differ; the equal counts are not marked"
    assert '<tr><td class="mark"></td><td>stats docs_in</td>' in page


def test_look_alike_texts_are_told_apart_by_their_code_points_on_the_page() -> None:
    case = keeps_last_case("caf\u00e9")
    case.got["output"] = [{"id": "d2", "text": "cafe\u0301", "meta": {}}]
    graded = report({CHECKS[12]: Outcome.FAILED}, minimal_cases={CHECKS[12]: case})
    page = page_of([graded])
    assert "U+00E9 against U+0065 U+0301" in page


def test_each_submission_s_feedback_is_folded_until_opened() -> None:
    page = page_of(batch())
    assert page.count('<details class="submission" id="submission-') == 3
    assert "<details open" not in page


def test_the_score_distribution_has_one_bar_per_score_full_marks_alone() -> None:
    """A top bin that closes on both ends put 13/14 and 14/14 in one bar: every score has its own."""
    reports = [
        report(name="a"),
        report({CHECKS[0]: Outcome.FAILED}, name="b"),
        *(buggy_report(f"c{n}") for n in range(3)),
    ]
    bars = dict(grade_html.score_bars(class_view(reports)))
    assert list(bars) == list(range(len(CHECKS) + 1))
    assert (bars[len(CHECKS)], bars[len(CHECKS) - 1], bars[len(CHECKS) - 2], bars[0]) == (1, 1, 3, 0)


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
