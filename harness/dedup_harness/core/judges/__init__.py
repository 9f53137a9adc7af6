"""Each check judged by one function: the suite's test and the grader's shrinker call the same judge.

A judge takes a ``Subject`` (the implementation under test, a scratch folder, a memory gauge) and an
input, and returns a ``Verdict``: whether the input fails, what was expected, what came back, and
how they differ in plain words. What is expected comes from trusted sources only (the oracle,
``core.bloom_sizing`` and the course's filter: ``expected.py``), never from the implementation's own
stats or ``bloom_rate`` unless that value is what the check is about. A check's test in
``tests/suite`` only chooses its inputs; ``core/checks.py`` names each check's judge.
"""

from __future__ import annotations

from collections.abc import Callable

from dedup_harness.core.judges.memory import memory
from dedup_harness.core.judges.output import documents, hand, output, stage, tiny_filter
from dedup_harness.core.judges.sizing import budget, sizing
from dedup_harness.core.judges.split import split
from dedup_harness.core.judges.spool import spool
from dedup_harness.core.judges.stats import stats
from dedup_harness.core.judges.verdict import Inputs, Subject, Verdict, VerdictFailed

Judge = Callable[[Subject, Inputs], Verdict]

JUDGES: dict[str, Judge] = {
    "hand": hand,
    "output": output,
    "documents": documents,
    "tiny filter": tiny_filter,
    "split": split,
    "sizing": sizing,
    "budget": budget,
    "stats": stats,
    "spool": spool,
    "stage": stage,
    "memory": memory,
}

__all__ = ["JUDGES", "Inputs", "Judge", "Subject", "Verdict", "VerdictFailed"]
