"""Points per check: equal weights by default, or the TOML file of ``grade --weights`` (docs/grade.md).

A check earns its whole weight when it passes and nothing otherwise: its parametrized cases pass or
fail together. Points are exact (``Fraction``; the file's numbers read as the decimals they are
written as), so full marks are exactly ``total``; reports show them rounded to ``PLACES`` decimals,
trailing zeros dropped (``100``, ``33.3333``), the same text every time.
"""

from __future__ import annotations

import decimal
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from dedup_harness.core.checks import CHECKS

PLACES = 4
ZERO = Fraction(0)


class WeightsError(ValueError):
    """The weights file is malformed: the message names the file and the entry."""


@dataclass(frozen=True)
class Weights:
    """The points each check is worth, for every check of the suite, in its order."""

    points: Mapping[str, Fraction]

    @property
    def max_score(self) -> Fraction:
        return sum(self.points.values(), ZERO)

    def earned(self, passed: frozenset[str]) -> Fraction:
        return sum((self.points[name] for name in passed if name in self.points), ZERO)


def points_text(value: Fraction) -> str:
    """Points for people and the CSV: rounded half to even to ``PLACES`` decimals, no trailing zeros."""
    text = f"{decimal.Decimal(round(value * 10**PLACES)).scaleb(-PLACES):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def out_of(score: Fraction, max_score: Fraction) -> str:
    """``score/max_score`` as a table shows it."""
    return f"{points_text(score)}/{points_text(max_score)}"


def points_number(value: Fraction) -> int | float:
    """Points for JSON: the number ``points_text`` writes (an integer when it is one)."""
    text = points_text(value)
    return float(text) if "." in text else int(text)


def shares(values: Sequence[Fraction], total: Fraction) -> list[int | float]:
    """``values`` written with ``PLACES`` decimals so that, as written, they add up to ``total`` as it is written:
    each is cut down to its places, and the units that leaves over go one each to those that lost the most
    (the first of equals). 100 shared by three checks is 33.3334, 33.3333 and 33.3333, never 99.9999; no share
    is more than one unit (0.0001) from its exact value."""
    unit = Fraction(1, 10**PLACES)
    floors = [math.floor(value / unit) for value in values]
    left = round(total / unit) - sum(floors)
    by_loss = sorted(range(len(values)), key=lambda i: (-(values[i] / unit - floors[i]), i))
    for i in by_loss[: max(0, left)]:
        floors[i] += 1
    return [points_number(units * unit) for units in floors]


def parse_points(text: str) -> Fraction:
    """The points a report wrote with ``points_text``; ValueError when ``text`` is not such a number."""
    try:
        value = decimal.Decimal(text)
    except decimal.InvalidOperation:
        raise ValueError(f"{text!r} is not a number") from None
    if not value.is_finite() or points_text(Fraction(value)) != text:
        raise ValueError(f"{text!r} is not a number of points as the grader writes them")
    return Fraction(value)


def equal_weights() -> Weights:
    return Weights(dict.fromkeys(CHECKS, Fraction(1)))


def load_weights(path: Path) -> Weights:
    """The weights a TOML file sets; raises WeightsError naming what is wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"), parse_float=decimal.Decimal)
    except OSError as exc:
        raise WeightsError(f"cannot read the weights file {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise WeightsError(f"{path}: not valid TOML: {exc}") from None
    return weights_from(data, where=str(path))


def weights_from(data: Mapping[str, object], *, where: str = "weights") -> Weights:
    unknown_keys = sorted(set(data) - {"total", "default", "weights"})
    if unknown_keys:
        raise WeightsError(f"{where}: unknown keys {unknown_keys} (expected total, default, [weights])")
    table = data.get("weights", {})
    if not isinstance(table, dict):
        raise WeightsError(f"{where}: [weights] must be a table of check = number")
    unknown = sorted(set(table) - set(CHECKS))
    if unknown:
        raise WeightsError(f"{where}: [weights] names unknown checks {unknown}; the checks are {list(CHECKS)}")
    default = _number(data.get("default", 1), f"{where}: default")
    points = {name: _number(table[name], f"{where}: weights.{name}") if name in table else default for name in CHECKS}
    weight_sum = sum(points.values(), ZERO)
    if weight_sum == 0:
        raise WeightsError(f"{where}: every weight is zero; a grade needs at least one check worth points")
    if "total" in data:
        total = _number(data["total"], f"{where}: total", positive=True)
        points = {name: total * value / weight_sum for name, value in points.items()}
    return Weights(points)


def _number(value: object, what: str, *, positive: bool = False) -> Fraction:
    """``value`` as an exact number: a TOML integer, or a decimal as written (a float by its shortest repr)."""
    kind = "a positive" if positive else "a non-negative"
    if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
        raise WeightsError(f"{what} must be {kind} number, got {value!r}")
    exact = decimal.Decimal(repr(value)) if isinstance(value, float) else decimal.Decimal(value)
    if not exact.is_finite() or exact < 0 or (positive and exact == 0):
        raise WeightsError(f"{what} must be {kind} number, got {value!r}")
    return Fraction(exact)
