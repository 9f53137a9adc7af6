"""Points per check from a weights file."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from dedup_harness.cli import main
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.reports import csv_report, gradescope, json_report, junit
from dedup_harness.grade.reports.model import GradeReport
from dedup_harness.grade.reports.summary import Outline, summarize
from dedup_harness.grade.scoring import WeightsError, equal_weights, load_weights, weights_from
from grade_fakes import DIAGNOSER, report


def test_equal_weights_give_one_point_per_check() -> None:
    weights = equal_weights()
    assert weights.max_score == len(CHECKS)
    assert weights.earned(frozenset(CHECKS[:5])) == 5


def test_a_weights_file_sets_listed_checks_and_the_default_sets_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "weights.toml"
    path.write_text(f"default = 2\n[weights]\n{CHECKS[0]} = 10\n", encoding="utf-8")
    weights = load_weights(path)
    assert weights.points[CHECKS[0]] == 10
    assert weights.points[CHECKS[1]] == 2
    assert weights.max_score == 10 + 2 * (len(CHECKS) - 1)


def test_a_total_scales_the_points_to_that_many() -> None:
    weights = weights_from({"total": 100, "weights": {CHECKS[0]: 3}})
    assert weights.max_score == pytest.approx(100, abs=1e-3)
    assert weights.points[CHECKS[0]] == pytest.approx(3 * weights.points[CHECKS[1]], abs=1e-3)


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"weights": {"test_no_such_check": 1}}, "test_no_such_check"),
        ({"weights": {CHECKS[0]: -1}}, "weights.test_hand_example_three_documents"),
        ({"default": "two"}, "default"),
        ({"points": 3}, "points"),
        ({"default": 0}, "every weight is zero"),
        ({"total": 10, "default": 0}, "every weight is zero"),
    ],
)
def test_a_bad_weights_table_is_refused_with_a_message_naming_the_entry(data: dict[str, object], named: str) -> None:
    with pytest.raises(WeightsError, match=named):
        weights_from(data)


def test_a_file_that_is_not_toml_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "w.toml"
    path.write_text("weights = [", encoding="utf-8")
    with pytest.raises(WeightsError, match=r"w\.toml"):
        load_weights(path)
    with pytest.raises(WeightsError, match="cannot read"):
        load_weights(tmp_path / "missing.toml")


def graded(options: GradingOptions, failed: tuple[str, ...] = ()) -> GradeReport:
    return report(dict.fromkeys(failed, Outcome.FAILED), options=options)


def test_full_marks_are_exactly_the_total_in_every_report() -> None:
    """Points that do not divide evenly still add up: 100 is 100, never 99.9996."""
    options = GradingOptions(weights_from({"total": 100, "weights": {CHECKS[0]: 3, CHECKS[1]: 0.7}}), DIAGNOSER)
    full = graded(options)
    row = csv_report.row(full, "1/1")
    assert (row["score"], row["max_score"]) == ("100", "100")
    assert json.loads(gradescope.render(full))["score"] == 100
    document = json.loads(json_report.render([full], summarize([Outline.of(full)])))
    assert document["submissions"][0]["score"] == 100 and document["summary"]["mean_score"] == 100
    assert f'<property name="{full.submission}: score" value="100" />' in junit.render([full])


def test_points_read_with_four_fixed_places_at_most() -> None:
    weights = weights_from({"total": 100, "default": 0, "weights": dict.fromkeys(CHECKS[:3], 1)})
    options = GradingOptions(weights, DIAGNOSER)
    rows = [csv_report.row(graded(options, failed), "1/1") for failed in ((), CHECKS[1:3], CHECKS[:3])]
    assert [r["score"] for r in rows] == ["100", "33.3333", "0"]
    assert summarize(map(Outline.from_row, rows))["mean_score"] == 44.4444


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"total": 0}, "total must be a positive number"),
        ({"total": -5}, "total must be a positive number"),
        ({"total": float("nan")}, "total must be a positive number"),
        ({"weights": dict.fromkeys(CHECKS, 0)}, "every weight is zero"),
    ],
)
def test_a_total_of_zero_and_all_zero_weights_are_refused(data: dict[str, object], says: str) -> None:
    with pytest.raises(WeightsError, match=says):
        weights_from(data)


def test_a_weights_file_with_a_zero_total_is_refused_by_grade(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "w.toml").write_text("total = 0\n", encoding="utf-8")
    (tmp_path / "dedup.py").write_text("", encoding="utf-8")
    assert main(["grade", str(tmp_path / "dedup.py"), "--weights", str(tmp_path / "w.toml")]) == 2
    assert "total must be a positive number" in capsys.readouterr().err


@pytest.mark.parametrize("total", [100, 7, 1])
def test_gradescopes_points_as_written_add_up_exactly_to_the_total(total: int) -> None:
    """Fourteen equal shares of 100 are 7.1429 eight times and 7.1428 six: 100, not the 99.9998 of rounding each."""
    weights = weights_from({"total": total})
    tests = gradescope.results(report({}, options=GradingOptions(weights, DIAGNOSER)))["tests"]
    written = [Fraction(str(test["max_score"])) for test in tests]
    assert sum(written) == total
    assert all(abs(share - Fraction(total, len(CHECKS))) <= Fraction(1, 10_000) for share in written)
    assert all(test["score"] == test["max_score"] for test in tests)
