"""Shared pieces of the benchmarks: cached corpora, a record of what each bench measured, the ratio table.

The corpora are generated once per seed and size into ``DEDUP_BENCH_CACHE`` (tox points it at its work
folder), else into a temporary folder for the session. At the end of the run the ratios the issue asks
for are printed and written to ``DEDUP_BENCH_REPORT`` (default ``.bench/ratios.json`` and ``.md``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core import jsonl
from dedup_harness.core.corpora import bench_corpus

SEED = 7
ROUNDS = int(os.environ.get("DEDUP_BENCH_ROUNDS", "3"))  # below 10M paragraphs; the machine is shared, so more help
STAGE_RUN = Path(__file__).with_name("stage_run.py")
RESULTS: dict[str, dict[str, Any]] = {}


def corpus_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``DEDUP_BENCH_CACHE`` (tox sets it), else a temporary folder for the session."""
    cache = os.environ.get("DEDUP_BENCH_CACHE")
    folder = Path(cache) if cache else tmp_path_factory.mktemp("corpora")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def bench_corpus_file(folder: Path, paragraphs: int, repeat_rate: float = 0.05) -> Path:
    """The seeded corpus of ``paragraphs`` paragraphs, about ``repeat_rate`` of them repeats (written once)."""
    rate = "" if repeat_rate == 0.05 else f"-r{round(repeat_rate * 100):02d}"  # 5%: the name of issue 7's corpora
    path = folder / f"bench-v1-seed{SEED}-{paragraphs}{rate}.jsonl"
    return _written(path, bench_corpus(SEED, paragraphs=paragraphs, repeat_rate=repeat_rate))


def docs_corpus_file(folder: Path, docs: int) -> Path:
    """The first ``docs`` documents of the seeded corpus at 5% repeats (1 to 9 paragraphs each, 5 on average)."""
    path = folder / f"bench-v1-seed{SEED}-docs{docs}.jsonl"
    return _written(path, itertools.islice(bench_corpus(SEED, paragraphs=9 * docs), docs))


def _written(path: Path, records: Iterable[jsonl.Record]) -> Path:
    if not path.exists():
        partial = path.with_suffix(".part")
        with open(partial, "wb") as out:
            for record in records:
                jsonl.write_record(out, record)
        partial.replace(path)
    return path


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``corpus_file(n, repeat_rate=0.05)``: the path of the seeded JSON Lines bench corpus of n paragraphs."""
    folder = corpus_cache(tmp_path_factory)
    return lambda paragraphs, repeat_rate=0.05: bench_corpus_file(folder, paragraphs, repeat_rate)


@pytest.fixture(scope="session")
def docs_corpus(tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], Path]:
    """``docs_corpus(n)``: the path of the seeded JSON Lines bench corpus of n documents (5% repeats)."""
    folder = corpus_cache(tmp_path_factory)
    return lambda docs: docs_corpus_file(folder, docs)


def run_target(which: str, corpus: Path, out: Path) -> dict[str, Any]:
    """One run of ``stage_run.py`` in a fresh child: its figures, its wall time as a process, its output's digest."""
    load, start = os.getloadavg()[0], time.perf_counter()
    child = subprocess.run(
        [sys.executable, str(STAGE_RUN), which, str(corpus), str(out)], capture_output=True, text=True
    )
    process_seconds = time.perf_counter() - start
    if child.returncode != 0:
        pytest.fail(f"stage_run.py {which} {corpus.name} exited with {child.returncode}:\n{child.stderr}")
    result: dict[str, Any] = json.loads(child.stdout.splitlines()[-1])
    result["process_seconds"] = process_seconds
    result["loads"] = [load, os.getloadavg()[0]]  # the load average (1 minute) as it began and as it ended
    with open(out, "rb") as written:
        result["output_sha256"] = hashlib.file_digest(written, "sha256").hexdigest()
    out.unlink()
    return result


def run_rounds(
    benchmark: Any, targets: tuple[str, ...], corpus: Path, scratch: Path, rounds: int
) -> dict[str, list[dict[str, Any]]]:
    """Every target once a round, in an order rotated each round, so that the machine's load falls on all alike.

    Returns each target's runs. Every output must be byte for byte the same.
    """
    runs: dict[str, list[dict[str, Any]]] = {which: [] for which in targets}
    turns = itertools.count()

    def one_round() -> None:
        turn = next(turns) % len(targets)
        for which in targets[turn:] + targets[:turn]:
            runs[which].append(run_target(which, corpus, scratch / f"{which}.jsonl"))

    benchmark.pedantic(one_round, rounds=rounds, iterations=1)
    outputs = {which: {r["output_sha256"] for r in found} for which, found in runs.items()}
    assert len(set().union(*outputs.values())) == 1, f"the outputs differ: {outputs}"
    return runs


def best(runs: list[dict[str, Any]], paragraphs: int) -> dict[str, Any]:
    """The best of the rounds: least wall time, least CPU time, least growth of the peak."""
    assert all(r["stats"]["paragraphs"] == paragraphs for r in runs)
    growth = min(r["peak_rss"] - r["baseline_rss"] for r in runs)
    return {
        "paragraphs": paragraphs,
        "seconds": min(r["seconds"] for r in runs),
        "median_seconds": statistics.median(r["seconds"] for r in runs),
        "cpu_seconds": min(r["cpu_seconds"] for r in runs),
        "process_seconds": min(r["process_seconds"] for r in runs),
        "peak_growth": growth,
        "bytes_per_paragraph": growth / paragraphs,
        "process_peak": min(max(r["import_peak_rss"], r["peak_rss"]) for r in runs),
        "rounds": len(runs),
        "all_seconds": [r["seconds"] for r in runs],
        "all_cpu_seconds": [r["cpu_seconds"] for r in runs],
        "loads": [load for r in runs for load in r["loads"]],
        "stats": runs[0]["stats"],
    }


def record(key: str, **values: Any) -> None:
    """Keep what a bench measured for the ratio table."""
    RESULTS.setdefault(key, {}).update(values)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from ratios import (
        figures_table,
        markdown_table,
        ratio_rows,
    )  # benchmarks/ is on sys.path (rootdir-relative conftest)

    if not RESULTS:
        return
    rows = ratio_rows(RESULTS)
    text = markdown_table(rows)
    figures = figures_table(RESULTS)
    terminalreporter.write_sep("=", "ratios (this run)")
    terminalreporter.write_line(text)
    terminalreporter.write_sep("=", "figures (this run)")
    terminalreporter.write_line(figures)
    target = Path(os.environ.get("DEDUP_BENCH_REPORT", ".bench/ratios.json"))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"results": RESULTS, "rows": rows}, indent=2) + "\n", encoding="utf-8")
    target.with_suffix(".md").write_text(text + "\n\n" + figures + "\n", encoding="utf-8")
    terminalreporter.write_line(f"written: {target} and {target.with_suffix('.md')}")
