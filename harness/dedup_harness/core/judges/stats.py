"""The judge of the stats: every key filled with a whole number once the output is exhausted, also for no input."""

from __future__ import annotations

from typing import Any

from dedup_harness.core.contract import STATS_KEYS
from dedup_harness.core.judges.expected import Expected
from dedup_harness.core.judges.running import run_stage, stats_differences
from dedup_harness.core.judges.verdict import Inputs, Subject, Verdict, verdict

DEFAULT_B = 10  # bloom_bytes_per_item when a caller leaves it out


def stats(subject: Subject, inputs: Inputs) -> Verdict:
    """STATS_KEYS names the eight stats; each is a whole number once the output is exhausted; for an empty
    input, a filter sized for one paragraph, every count 0, and B's default of 10."""
    docs, b = inputs["docs"], inputs.get("bloom_bytes_per_item", DEFAULT_B)
    names = tuple(subject.impl.STATS_KEYS)
    if names != STATS_KEYS:  # the first question, and a wrong answer says enough alone
        return verdict(
            {"STATS_KEYS": STATS_KEYS}, {"STATS_KEYS": names}, [f"STATS_KEYS should be {STATS_KEYS}, got {names!r}"]
        )
    differences = []
    _, got = run_stage(subject.impl, docs, b)
    missing = [key for key in STATS_KEYS if type(got.get(key)) is not int]
    if missing:
        differences.append(f"these stats are missing or not whole numbers once the output was read: {missing}")
    elif not docs:
        differences += [f"for an empty input, {d}" for d in stats_differences(got, Expected(docs, b).every_stat())]
        default: dict[str, Any] = {}
        list(subject.impl.exact_dedup(iter(docs), stats=default))
        if default != Expected(docs, DEFAULT_B).every_stat():
            differences.append(
                f"bloom_bytes_per_item should default to 10: with it left out the stats should be "
                f"{Expected(docs, DEFAULT_B).every_stat()!r}, got {default!r}"
            )
    want = Expected(docs, b).every_stat() if not docs else dict.fromkeys(STATS_KEYS, "a whole number")
    return verdict({"stats": want}, {"stats": {key: got.get(key) for key in STATS_KEYS}}, differences)
