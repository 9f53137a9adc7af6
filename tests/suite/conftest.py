"""Fixtures the checks share: the stage under test, run to the end, and the fixture corpus.

Nothing here imports ``corpus`` at module level: this file loads before ``--impl`` has put the
implementation root on sys.path.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core.memory_probe import MEMORY_PROBE_KEY, MemoryProbe, TracedMemory

FIXTURE_DIR = Path(__file__).resolve().parent.parent.parent / "fixtures" / "data.03"


@pytest.fixture(scope="session")
def run(impl: Any) -> Callable[..., tuple[list[Any], dict[str, Any]]]:
    """Run the stage under test to the end over a one-shot iterator; returns (output, stats)."""

    def run(docs: Iterable[Any], bloom_bytes_per_item: float = 10, **options: Any) -> tuple[list[Any], dict[str, Any]]:
        stats: dict[str, Any] = {}
        output = impl.exact_dedup(iter(list(docs)), bloom_bytes_per_item, stats=stats, **options)
        # The grader's proxy reads a remote output to the end in a few round trips instead of one per
        # document (dedup_harness.grade.remote_output.RemoteOutput.read_all); any other output is read as list() does.
        read_all = getattr(type(output), "read_all", None)
        return (read_all(output) if read_all is not None else list(output)), stats

    return run


@pytest.fixture(scope="session")
def fixture_docs() -> list[Any]:
    from corpus.doc import Doc

    with open(FIXTURE_DIR / "docs.jsonl", encoding="utf-8") as lines:
        return [Doc(r["id"], r["text"], r["meta"]) for r in map(json.loads, lines)]


@pytest.fixture(scope="session")
def fixture_expected() -> dict[str, Any]:
    with open(FIXTURE_DIR / "expected.json", encoding="utf-8") as f:
        expected: dict[str, Any] = json.load(f)
    return expected


@pytest.fixture(scope="session")
def memory_probe(pytestconfig: pytest.Config) -> Callable[[], MemoryProbe]:
    """How the stage's memory is measured: tracemalloc in this process, unless a plugin put its own
    probe in the stash (the grader measures its isolated worker)."""
    return pytestconfig.stash.get(MEMORY_PROBE_KEY, TracedMemory)
