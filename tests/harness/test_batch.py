"""Batches: deterministic shards, parallel grading in name order, and merging shard CSVs."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from dedup_harness.cli import main
from dedup_harness.core.checks import CHECKS
from dedup_harness.distribution.batch_identity import identify
from dedup_harness.distribution.shards import Shard, ShardError, merge_rows, parse_shard
from dedup_harness.grade.batch import grade_batch
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.reports import csv_report
from dedup_harness.grade.reports.model import GradeReport
from grade_fakes import OPTIONS, buggy_report, report

NAMES = [f"sub{n:03d}" for n in range(10)]


def test_shards_split_a_batch_into_disjoint_balanced_parts_whatever_the_order_given() -> None:
    shards = [Shard(i, 3).select(list(reversed(NAMES))) for i in (1, 2, 3)]
    assert sorted(name for shard in shards for name in shard) == NAMES
    assert [len(s) for s in shards] == [4, 3, 3]
    assert shards[0] == Shard(1, 3).select(NAMES)


@pytest.mark.parametrize("text", ["0/3", "4/3", "1", "a/b", "1/0"])
def test_a_bad_shard_is_refused(text: str) -> None:
    with pytest.raises(ShardError):
        parse_shard(text)


def test_a_batch_is_graded_in_parallel_and_reported_in_name_order() -> None:
    def fake(path: Path, options: GradingOptions, name: str) -> GradeReport:
        return buggy_report(name) if name.endswith("3") else report(name=name)

    reports = grade_batch(list(reversed(NAMES)), OPTIONS, jobs=3, grader=fake)
    assert [r.submission for r in reports] == NAMES
    assert [r.score for r in reports].count(len(CHECKS) - 2) == 1


def test_a_grader_failure_on_one_submission_is_a_harness_error_and_the_batch_goes_on() -> None:
    def fake(path: Path, options: GradingOptions, name: str) -> GradeReport:
        if name == "sub002":
            raise OSError("disk full")
        return report(name=name)

    reports = grade_batch(NAMES[:4], OPTIONS, jobs=2, grader=fake)
    assert [str(r.status) for r in reports] == ["graded", "graded", "harness-error", "graded"]
    assert reports[2].harness_error == "OSError: disk full"


def write_shards(tmp_path: Path, count: int) -> list[Path]:
    paths = []
    for shard in (Shard(i, count) for i in range(1, count + 1)):
        rows = [
            csv_report.row(buggy_report(n) if n.endswith("3") else report(name=n), str(shard))
            for n in shard.select(NAMES)
        ]
        path = tmp_path / f"shard{shard.index}.csv"
        path.write_text(csv_report.render(rows, identify(NAMES, OPTIONS.weights).cells()), encoding="utf-8")
        paths.append(path)
    return paths


def test_merge_joins_shards_into_the_csv_one_run_would_have_written(tmp_path: Path) -> None:
    rows, _, batch = merge_rows(write_shards(tmp_path, 3), None)
    assert [r["submission"] for r in rows] == NAMES
    out, summary = tmp_path / "all.csv", tmp_path / "summary.json"
    assert main(["merge", *map(str, write_shards(tmp_path, 3)), "--csv", str(out), "--json", str(summary)]) == 0
    assert out.read_text(encoding="utf-8") == csv_report.render(rows, batch.cells())
    assert json.loads(summary.read_text(encoding="utf-8"))["full_marks"] == 9


def test_merge_refuses_a_missing_shard_a_repeated_one_and_mixed_splits(tmp_path: Path) -> None:
    three = write_shards(tmp_path, 3)
    with pytest.raises(ShardError, match="missing: 2/3"):
        merge_rows([three[0], three[2]], None)
    with pytest.raises(ShardError, match="more than one shard"):
        merge_rows([three[0], three[0], three[1], three[2]], None)
    (tmp_path / "two").mkdir()
    two = write_shards(tmp_path / "two", 2)
    with pytest.raises(ShardError, match="different splits"):
        merge_rows([three[0], two[1]], None)
    assert main(["merge", str(three[0])]) == 2


def test_merge_accepts_an_empty_shard_when_every_shard_file_is_given(tmp_path: Path) -> None:
    rows, batch = [csv_report.row(report(name="only"), "1/2")], identify(["only"], OPTIONS.weights)
    (tmp_path / "a.csv").write_text(csv_report.render(rows, batch.cells()), encoding="utf-8")
    (tmp_path / "b.csv").write_text(csv_report.render([], batch.cells()), encoding="utf-8")
    merged, _, _ = merge_rows([tmp_path / "a.csv", tmp_path / "b.csv"], None)
    assert [r["submission"] for r in merged] == ["only"]


def test_merge_refuses_a_file_that_is_not_a_grade_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    assert main(["merge", str(tmp_path / "x.csv")]) == 2
    assert "not a grade CSV" in capsys.readouterr().err


def test_grade_refuses_a_missing_path_and_a_bad_weights_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["grade", str(tmp_path / "nope.py")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    (tmp_path / "w.toml").write_text("[weights]\ntest_nothing = 1\n", encoding="utf-8")
    (tmp_path / "dedup.py").write_text("", encoding="utf-8")
    assert main(["grade", str(tmp_path / "dedup.py"), "--weights", str(tmp_path / "w.toml")]) == 2
    assert "test_nothing" in capsys.readouterr().err
    assert main(["grade", str(tmp_path / "dedup.py"), "--shard", "3/2"]) == 2


def test_merge_refuses_a_shard_graded_by_a_different_set_of_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shard an older harness graded (one check fewer) cannot be joined: its scores mean something else."""
    one, two = write_shards(tmp_path, 2)
    rows = list(csv.reader(io.StringIO(two.read_text(encoding="utf-8"))))
    gone = rows[0].index(CHECKS[-1])
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([row[:gone] + row[gone + 1 :] for row in rows])
    two.write_text(out.getvalue(), encoding="utf-8")
    assert main(["merge", str(one), str(two)]) == 2
    message = capsys.readouterr().err.strip()
    assert message.count("\n") == 0, "one clear line"
    assert "graded with a different set of checks" in message and CHECKS[-1] in message
