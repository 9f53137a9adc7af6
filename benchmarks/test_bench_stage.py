"""The reference stage against the set oracle on the same corpora: wall time and peak memory per paragraph.

Each stage runs ``stage_run.py`` in a fresh child process, so peak memory is that child's own high-water
mark above its baseline; wall and CPU time are the stage's, measured inside the child (interpreter start
and imports excluded for both). The best of the rounds goes into the ratio table; both outputs must be
byte for byte the same.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import record

STAGE_RUN = Path(__file__).with_name("stage_run.py")
ROUNDS = {10_000: 3, 100_000: 3, 1_000_000: 3}


def run_stage(stage: str, corpus: Path, out: Path) -> dict[str, Any]:
    child = subprocess.run(
        [sys.executable, str(STAGE_RUN), stage, str(corpus), str(out)], capture_output=True, text=True, check=True
    )
    return json.loads(child.stdout)  # type: ignore[no-any-return]


def best(runs: list[dict[str, Any]], paragraphs: int) -> dict[str, Any]:
    """The best of the rounds: least wall time, least CPU time, least growth of the peak."""
    assert all(r["stats"]["paragraphs"] == paragraphs for r in runs)
    return {
        "paragraphs": paragraphs,
        "seconds": min(r["seconds"] for r in runs),
        "cpu_seconds": min(r["cpu_seconds"] for r in runs),
        "bytes_per_paragraph": min(r["peak_rss"] - r["baseline_rss"] for r in runs) / paragraphs,
    }


@pytest.mark.parametrize("paragraphs", sorted(ROUNDS))
def test_reference_against_oracle(
    benchmark: Any, paragraphs: int, corpus_file: Callable[[int], Path], tmp_path: Path
) -> None:
    """A round runs the oracle, then the reference, on the same corpus: load on the machine hits both alike."""
    corpus = corpus_file(paragraphs)
    runs: dict[str, list[dict[str, Any]]] = {"oracle": [], "reference": []}

    def one_round() -> None:
        for stage, found in runs.items():
            found.append(run_stage(stage, corpus, tmp_path / f"{stage}.jsonl"))

    benchmark.pedantic(one_round, rounds=ROUNDS[paragraphs], iterations=1)
    assert (tmp_path / "oracle.jsonl").read_bytes() == (tmp_path / "reference.jsonl").read_bytes()
    for stage, found in runs.items():
        measured = best(found, paragraphs)
        benchmark.extra_info[stage] = measured
        record(f"stage:{stage}:{paragraphs}", **measured)
