"""The reference stage against the set oracle on the same corpora: wall time and peak memory per paragraph.

Each round runs ``stage_run.py`` in a fresh child process, so peak memory is that child's own high-water
mark above its baseline; wall time is the stage's, measured inside the child (interpreter start and
imports excluded for both). The best of the rounds goes into the ratio table.
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
ROUNDS = {10_000: 3, 100_000: 3, 1_000_000: 2}


def run_stage(stage: str, corpus: Path, out: Path) -> dict[str, Any]:
    child = subprocess.run(
        [sys.executable, str(STAGE_RUN), stage, str(corpus), str(out)], capture_output=True, text=True, check=True
    )
    return json.loads(child.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("paragraphs", sorted(ROUNDS))
@pytest.mark.parametrize("stage", ["oracle", "reference"])
def test_stage(benchmark: Any, stage: str, paragraphs: int, corpus_file: Callable[[int], Path], tmp_path: Path) -> None:
    corpus = corpus_file(paragraphs)
    runs: list[dict[str, Any]] = []
    benchmark.pedantic(
        lambda: runs.append(run_stage(stage, corpus, tmp_path / "out.jsonl")), rounds=ROUNDS[paragraphs], iterations=1
    )
    assert all(r["stats"]["paragraphs"] == paragraphs for r in runs)
    seconds = min(r["seconds"] for r in runs)
    cpu_seconds = min(r["cpu_seconds"] for r in runs)
    grown = min(r["peak_rss"] - r["baseline_rss"] for r in runs)
    benchmark.extra_info.update(stage_seconds=seconds, cpu_seconds=cpu_seconds, peak_bytes_above_baseline=grown)
    record(
        f"stage:{stage}:{paragraphs}",
        paragraphs=paragraphs,
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        bytes_per_paragraph=grown / paragraphs,
    )
