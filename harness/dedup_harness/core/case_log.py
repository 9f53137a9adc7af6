"""What a check tried: its inputs, recorded by the suite, for the shrinker to start from.

Each check records the input it is about to assert on (``record(docs=..., bloom_bytes_per_item=...)``,
or ``text=`` for a split, ``ending=`` for a spool's ending). When the check fails, one of the recent
records is the failing input: the last one, for most checks; for a Hypothesis check, which may run
other examples after the one that failed, whichever of them still fails when judged again. Records
hold the objects as they are: nothing is copied.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from dedup_harness.core.judges.running import records

KEPT = 64  # the most recent records of the current check
_records: deque[dict[str, Any]] = deque(maxlen=KEPT)


def record(**inputs: Any) -> None:
    """The input the current check is about to judge."""
    _records.append(inputs)


def recent() -> list[dict[str, Any]]:
    """The current check's records, the most recent first."""
    return list(reversed(_records))


def forget() -> None:
    _records.clear()


def shown(inputs: dict[str, Any]) -> dict[str, Any]:
    """An input as a report shows it: documents as records, every other option as it is."""
    return {key: records(value) if key == "docs" else value for key, value in inputs.items()}
