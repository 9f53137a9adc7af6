"""A pytest plugin for runs under mutmut: a mutant's tests run fastest first.

mutmut runs each mutant's tests with ``-x`` in an order of its choosing, so a mutant the fast
hand-written cases kill could first sit through the 20,000-paragraph check. This plugin sorts the
selected tests by the durations mutmut measured in its stats run (``mutmut-stats.json`` in the
working folder, which is mutmut's ``mutants/``); tests it has not timed go last. Without the file
(the stats run itself) the order is left alone. Verdicts do not change: the same tests run, and every
check's cases are independent of order.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

STATS_FILE = Path("mutmut-stats.json")


def durations(path: Path = STATS_FILE) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    measured = data.get("duration_by_test") if isinstance(data, dict) else None
    return {str(k): float(v) for k, v in measured.items()} if isinstance(measured, dict) else {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seconds = durations()
    if seconds:
        items.sort(key=lambda item: seconds.get(item.nodeid, math.inf))
