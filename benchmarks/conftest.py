"""Shared pieces of the benchmarks: cached corpora, a record of what each bench measured, the ratio table.

The corpora are generated once per seed and size into ``DEDUP_BENCH_CACHE`` (tox points it at its work
folder), else into a temporary folder for the session. At the end of the run the ratios the issue asks
for are printed and written to ``DEDUP_BENCH_REPORT`` (default ``.bench/ratios.json`` and ``.md``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core import jsonl
from dedup_harness.core.corpora import bench_corpus

SEED = 7
RESULTS: dict[str, dict[str, Any]] = {}


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], Path]:
    """``corpus_file(n)``: the path of the seeded JSON Lines bench corpus of n paragraphs (about 5% repeats)."""
    cache = os.environ.get("DEDUP_BENCH_CACHE")
    folder = Path(cache) if cache else tmp_path_factory.mktemp("corpora")
    folder.mkdir(parents=True, exist_ok=True)

    def make(paragraphs: int) -> Path:
        path = folder / f"bench-v1-seed{SEED}-{paragraphs}.jsonl"
        if not path.exists():
            partial = path.with_suffix(".part")
            with open(partial, "wb") as out:
                for record in bench_corpus(SEED, paragraphs=paragraphs):
                    jsonl.write_record(out, record)
            partial.replace(path)
        return path

    return make


def record(key: str, **values: Any) -> None:
    """Keep what a bench measured for the ratio table."""
    RESULTS.setdefault(key, {}).update(values)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from ratios import markdown_table, ratio_rows  # benchmarks/ is on sys.path (rootdir-relative conftest)

    if not RESULTS:
        return
    rows = ratio_rows(RESULTS)
    text = markdown_table(rows)
    terminalreporter.write_sep("=", "ratios (this run)")
    terminalreporter.write_line(text)
    target = Path(os.environ.get("DEDUP_BENCH_REPORT", ".bench/ratios.json"))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"results": RESULTS, "rows": rows}, indent=2) + "\n", encoding="utf-8")
    target.with_suffix(".md").write_text(text + "\n", encoding="utf-8")
    terminalreporter.write_line(f"written: {target} and {target.with_suffix('.md')}")
