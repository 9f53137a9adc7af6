"""Points per check: equal weights by default, or a TOML file the course staff write.

The file (``grade --weights FILE``)::

    total = 100          # optional: scale the points so a perfect submission gets this many
    default = 1          # optional: the weight of every check not listed below (1 unless given)

    [weights]
    test_fixture_duplicate_counts = 3
    test_the_spool_is_removed = 0.5

A check earns its whole weight when it passes and nothing otherwise: its parametrized cases pass or
fail together (SPEC 5). Points are rounded to four decimals so reports stay byte for byte stable.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.core.checks import CHECKS

DIGITS = 4


class WeightsError(ValueError):
    """The weights file is malformed: the message names the file and the entry."""


@dataclass(frozen=True)
class Weights:
    """The points each check is worth, for every check of the suite, in its order."""

    points: Mapping[str, float]

    @property
    def max_score(self) -> float:
        return round(sum(self.points.values()), DIGITS)

    def earned(self, passed: frozenset[str]) -> float:
        return round(sum(self.points[name] for name in passed if name in self.points), DIGITS)


def equal_weights() -> Weights:
    return Weights(dict.fromkeys(CHECKS, 1.0))


def load_weights(path: Path) -> Weights:
    """The weights a TOML file sets; raises WeightsError naming what is wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
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
    points = {name: _number(table.get(name, default), f"{where}: weights.{name}") for name in CHECKS}
    if "total" in data:
        total = _number(data["total"], f"{where}: total")
        weight_sum = sum(points.values())
        if weight_sum == 0:
            raise WeightsError(f"{where}: every weight is zero, so no total can be reached")
        points = {name: total * value / weight_sum for name, value in points.items()}
    elif sum(points.values()) == 0:
        raise WeightsError(f"{where}: every weight is zero; a grade needs at least one check worth points")
    return Weights({name: round(value, DIGITS) for name, value in points.items()})


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise WeightsError(f"{what} must be a non-negative number, got {value!r}")
    return float(value)
