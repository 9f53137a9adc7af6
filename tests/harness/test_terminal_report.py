"""The terminal reports: a batch table that fits 80 columns with a legend, each minimal case printed once."""

from __future__ import annotations

from rich.console import Console

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.reports import terminal
from grade_fakes import buggy_report, hostile_report, keeps_last_case, keeps_last_report, report

LONG = "/home/ta/courses/data03/2026-spring/submissions"


def printed(width: int, print_to: object, *args: object) -> str:
    console = Console(record=True, width=width)
    print_to(console, *args)  # type: ignore[operator]
    return console.export_text()


def test_the_batch_table_fits_80_columns_with_long_paths_and_says_their_folder_once() -> None:
    reports = [
        report(name=f"{LONG}/alice_wonderland_smith_with_a_folder_name_far_too_long_for_any_table/dedup.py"),
        buggy_report(f"{LONG}/bob/dedup.py"),
        report(dict.fromkeys([*CHECKS[:7], *CHECKS[11:13]], Outcome.FAILED), name=f"{LONG}/carol/dedup.py"),
    ]
    text = printed(80, terminal.print_batch, reports)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert text.splitlines()[0] == f"submissions under {LONG}/"
    rows = [line for line in text.splitlines() if "dedup.py" in line]
    assert rows[0].lstrip().startswith("alice_w") and "…" in rows[0] and "/dedup.py" in rows[0]
    assert "bob/dedup.py" in rows[1] and "3-4" in rows[1] and "s02+s04" in rows[1]
    assert "1-7 12-13" in rows[2]


def test_the_legend_names_each_lost_check_and_each_pitfall_once() -> None:
    text = printed(80, terminal.print_batch, [buggy_report("a/dedup.py"), buggy_report("b/dedup.py")])
    legend = text[text.index("lost checks, by number:") :]
    assert [line.split() for line in legend.splitlines()[1:3]] == [["3", CHECKS[2]], ["4", CHECKS[3]]]
    assert legend.count("s02  compares occurrences only across documents") == 1
    assert "s04  drops every Bloom positive without confirming it" in legend


def test_a_minimal_case_three_checks_shrank_to_is_printed_once() -> None:
    text = printed(120, terminal.print_report, keeps_last_report())
    assert text.count("Smallest failing case found") == 1
    assert text.count("Smallest failing case: the same as check 1's, above.") == 2


def test_look_alike_texts_show_the_code_points_that_differ() -> None:
    case = keeps_last_case("caf\u00e9")
    case.got["output"] = [{"id": "d2", "text": "cafe\u0301", "meta": {}}]
    text = printed(120, terminal.print_report, report({CHECKS[12]: Outcome.FAILED}, minimal_cases={CHECKS[12]: case}))
    assert "look alike but differ: U+00E9 against U+0065 U+0301" in text


def test_a_report_fits_80_columns_its_feedback_and_cases_wrapped_or_cut() -> None:
    """What a TA reads at 80 columns: no line of a report or of a batch's summary runs past them."""
    for shown in (
        printed(80, terminal.print_report, keeps_last_report()),
        printed(80, terminal.print_report, hostile_report()),
    ):
        assert max(len(line) for line in shown.splitlines()) <= 80
    batch = printed(80, terminal.print_batch, [keeps_last_report("a/dedup.py"), buggy_report("b/dedup.py"), report()])
    assert max(len(line) for line in batch.splitlines()) <= 80
    assert "the class by what went wrong" in batch
