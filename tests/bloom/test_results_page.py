"""docs/bloom-audit.md's tables are what the recorded run gives, and the page's writer says when they are not."""

from __future__ import annotations

from pathlib import Path

import pytest

import bloom_results_page as results_page

from .recorded_run import RECORD

PAGE = RECORD.with_name("bloom-audit.md")
REWRITE = f"{results_page.MODULE} docs/bloom-audit.json docs/bloom-audit.md"
pytestmark = pytest.mark.skipif(not PAGE.is_file(), reason="docs/ lives in a checkout, not in an installed wheel")


def test_the_pages_tables_are_written_from_the_record(capsys: pytest.CaptureFixture[str]) -> None:
    assert results_page.main([str(RECORD), str(PAGE), "--check"]) == 0, f"run {REWRITE}"


def test_a_table_edited_by_hand_is_found_and_written_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "bloom-audit.md"
    real = PAGE.read_text(encoding="utf-8")
    page.write_text(real.replace("| rbloom | 1.5.4 | high rate | 3 |", "| rbloom | 1.5.4 | high rate | 4 |"), "utf-8")
    assert page.read_text(encoding="utf-8") != real
    assert results_page.main([str(RECORD), str(page), "--check"]) == 1
    assert "differs from what" in capsys.readouterr().out
    assert results_page.main([str(RECORD), str(page)]) == 0
    assert page.read_text(encoding="utf-8") == real


def test_a_page_without_a_tables_markers_is_refused_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "bloom-audit.md"
    page.write_text(PAGE.read_text(encoding="utf-8").replace(results_page.end("the faults"), ""), "utf-8")
    assert results_page.main([str(RECORD), str(page), "--check"]) == 2
    assert "<!-- end of the faults -->" in capsys.readouterr().err


def test_every_fault_of_the_record_is_on_the_page_with_its_reproduction() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for report in results_page.record.reports_of_json(results_page.record.read(RECORD)):
        for finding in report.findings + report.notes:
            assert f"**{report.target} {report.version}: {finding.cause}**" in text
        for reproduction in report.reproductions:
            assert reproduction.code.rstrip() in text
