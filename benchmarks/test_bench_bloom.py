"""The Bloom filter's batch path against rbloom at equal capacity and error rate: inserts and queries per second.

Both filters hold 1M items at the rate the reference's default B = 10 asks for (k = 55 hashes). Inserts
start from an empty filter; queries ask for items already in it. The per-item standard-library path is
timed on a small sample for scale: it is the definition, not the fast path.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

import pytest
from conftest import record

from dedup_harness.core import reference

rbloom = pytest.importorskip("rbloom")
bloom = reference.load("corpus.bloom")
dedup = reference.load("corpus.dedup")
# The external sort's pass 2 in numpy (impl_external/corpus/bloom_numpy.py), as the stage calls it.
screen_batch = reference.external_stage()._numpy_screen_batch
if screen_batch is None:
    pytest.skip("numpy is not installed: the batch path does not run", allow_module_level=True)

CAPACITY = 1_000_000
RATE = dedup.bloom_rate(10)
ITEMS = [hashlib.sha256(str(i).encode()).digest() for i in range(CAPACITY)]
BATCH = 16_384  # what the stage hands the filter at a time (Spool.BATCH)
SAMPLE = 5_000


def screen_all(f: Any, items: list[bytes]) -> None:
    for start in range(0, len(items), BATCH):
        screen_batch(f.bits, f.m, f.k, items[start : start + BATCH])


def best_rate(
    benchmark: Any, target: Callable[..., object], setup: Callable[[], Any], count: int, rounds: int
) -> float:
    times: list[float] = []

    def timed(arg: Any) -> None:
        start = time.perf_counter()
        target(arg)
        times.append(time.perf_counter() - start)

    benchmark.pedantic(timed, setup=lambda: ((setup(),), {}), rounds=rounds, iterations=1)
    return count / min(times)


def filled_batch() -> Any:
    f = bloom.BloomFilter(CAPACITY, RATE)
    screen_all(f, ITEMS)
    return f


def filled_rbloom() -> Any:
    b = rbloom.Bloom(CAPACITY, RATE)
    b.update(ITEMS)
    return b


def test_batch_inserts(benchmark: Any) -> None:
    rate = best_rate(benchmark, lambda f: screen_all(f, ITEMS), lambda: bloom.BloomFilter(CAPACITY, RATE), CAPACITY, 2)
    record("bloom:inserts:batch", per_second=rate)


def test_rbloom_inserts(benchmark: Any) -> None:
    rate = best_rate(benchmark, lambda b: b.update(ITEMS), lambda: rbloom.Bloom(CAPACITY, RATE), CAPACITY, 2)
    record("bloom:inserts:rbloom", per_second=rate)


def test_batch_queries(benchmark: Any) -> None:
    f = filled_batch()
    rate = best_rate(benchmark, lambda g: screen_all(g, ITEMS), lambda: f, CAPACITY, 2)
    record("bloom:queries:batch", per_second=rate)


def test_rbloom_queries(benchmark: Any) -> None:
    b = filled_rbloom()
    rate = best_rate(benchmark, lambda c: [item in c for item in ITEMS], lambda: b, CAPACITY, 2)
    record("bloom:queries:rbloom", per_second=rate)


def test_per_item_standard_library_inserts(benchmark: Any) -> None:
    def insert_all(f: Any) -> None:
        for item in ITEMS[:SAMPLE]:
            f.insert(item)

    rate = best_rate(benchmark, insert_all, lambda: bloom.BloomFilter(CAPACITY, RATE), SAMPLE, 1)
    record("bloom:inserts:per-item", per_second=rate)
