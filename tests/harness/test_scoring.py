"""Points per check from a weights file."""

from __future__ import annotations

from pathlib import Path

import pytest

from dedup_harness.core.checks import CHECKS
from dedup_harness.grade.scoring import WeightsError, equal_weights, load_weights, weights_from


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
