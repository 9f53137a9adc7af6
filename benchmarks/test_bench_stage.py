"""The stages side by side on the same corpora: wall time, CPU time and peak memory per paragraph.

Issue 7: the reference against the set oracle at 10k, 100k and 1M paragraphs, about 5% repeats.
Issue 16: at 1M paragraphs at 5% and at 50% repeats, the external-sort stage (``external``) and the
reference against one pass that keeps a set of SHA-256 digests (``digests``), the oracle beside them.
``DEDUP_BENCH_10M=ROUNDS`` adds the external stage and the digests at 10M paragraphs, both rates (each
corpus about 1.6 GB, generated once; a round takes several minutes), for the "flat from 1M to 10M" goal.
``DEDUP_BENCH_ROUNDS`` sets the rounds below 10M (3 by default).

Each target runs ``stage_run.py`` in a fresh child process, so peak memory is that child's own high-water
mark above its baseline; wall and CPU time are the stage's, measured inside the child (interpreter start
and imports excluded for all). The best of the rounds goes into the ratio table; every output must be
byte for byte the same.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import ROUNDS, best, record, run_rounds

ISSUE_16 = ("digests", "external", "reference", "oracle")
# (paragraphs, repeat rate): the targets and the rounds.
CASES: dict[tuple[int, float], tuple[tuple[str, ...], int]] = {
    (10_000, 0.05): (("oracle", "reference"), ROUNDS),
    (100_000, 0.05): (("oracle", "reference"), ROUNDS),
    (1_000_000, 0.05): (ISSUE_16, ROUNDS),
    (1_000_000, 0.5): (ISSUE_16, ROUNDS),
}
if os.environ.get("DEDUP_BENCH_10M", "0") not in ("", "0"):
    for rate in (0.05, 0.5):
        CASES[(10_000_000, rate)] = (("digests", "external"), int(os.environ["DEDUP_BENCH_10M"]))


@pytest.mark.parametrize(
    ("paragraphs", "repeat_rate"), [pytest.param(n, r, id=f"{n}-r{round(r * 100):02d}") for n, r in sorted(CASES)]
)
def test_stages(
    benchmark: Any, paragraphs: int, repeat_rate: float, corpus_file: Callable[..., Path], tmp_path: Path
) -> None:
    """Every round runs each target once on the same corpus (see ``run_rounds``)."""
    targets, rounds = CASES[(paragraphs, repeat_rate)]
    runs = run_rounds(benchmark, targets, corpus_file(paragraphs, repeat_rate), tmp_path, rounds)
    for stage, found in runs.items():
        measured = best(found, paragraphs)
        benchmark.extra_info[stage] = measured
        record(f"stage:{stage}:{paragraphs}:{repeat_rate:g}", repeat_rate=repeat_rate, **measured)
