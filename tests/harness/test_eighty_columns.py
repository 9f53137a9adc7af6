"""Every terminal table fits 80 columns: verify's kill matrix narrows, audit-bloom's tables fold where they cannot."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from consumers import judged_catalogue
from dedup_harness.bloom_audit.record import reports_of_json, speeds_of_json
from dedup_harness.bloom_audit.report import print_audit, show, summary_table, throughput_table
from dedup_harness.core.paths import DATA_ROOT
from dedup_harness.verify.report import render_terminal

RECORD = DATA_ROOT / "docs" / "bloom-audit.json"


def printed(width: int, draw: object) -> list[str]:
    out = io.StringIO()
    draw(Console(file=out, width=width, color_system=None))  # type: ignore[operator]
    return out.getvalue().splitlines()


def test_the_kill_matrix_fits_80_columns_with_every_column_whole(tmp_path: Path) -> None:
    matrix, _ = judged_catalogue(tmp_path)
    lines = printed(80, lambda console: render_terminal(matrix, console))
    assert max(map(len, lines)) <= 80
    header = next(line for line in lines if line.startswith("target"))
    assert header.split()[-3:] == ["14", "verdict", "s"], "no column is dropped to fit"
    assert any(line.startswith("reference ") and "passes" in line for line in lines)


@pytest.mark.skipif(not RECORD.is_file(), reason="docs/ lives in a checkout, not in an installed wheel")
def test_audit_bloom_folds_a_table_80_columns_cannot_hold_and_cuts_no_number() -> None:
    document = json.loads(RECORD.read_text(encoding="utf-8"))
    reports, speeds = reports_of_json(document), speeds_of_json(document)
    for draw in (
        lambda console: print_audit(console, reports[0]),
        lambda console: show(console, summary_table(reports)),
        lambda console: show(console, throughput_table(speeds)),
    ):
        narrow, wide = printed(80, draw), printed(200, draw)
        assert max(map(len, narrow)) <= 80
        assert "…" not in "\n".join(narrow), "folded, not squeezed: no number is cut"
        assert max(map(len, wide)) > 80, "where the table fits, it stays a table"
