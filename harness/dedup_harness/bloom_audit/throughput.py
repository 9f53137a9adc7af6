"""Inserts and queries per second for every filter, at one capacity and error rate, in one run.

Measured, never asserted: each filter is built for the same capacity and rate, filled with the
same fresh items through its adapter (the library's batch call where it has one) and asked about
as many other items. The adapter's per-item Python call is part of what is timed, as it is for
anyone calling the library from Python.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from dedup_harness.bloom_audit.adapters import CaseRefused
from dedup_harness.bloom_audit.filter_checks import unique_items
from dedup_harness.bloom_audit.target import AuditTarget

ITEMS = 100_000
RATE = 0.01


@dataclass(frozen=True)
class Throughput:
    target: str
    version: str
    capacity: int
    error_rate: float
    how: str  # how the filter was sized (datatrove takes bytes and k, not a rate)
    m: int | None
    k: int | None
    inserts_per_second: float | None  # None when the filter cannot be built at this capacity and rate
    queries_per_second: float | None


def measure(target: AuditTarget, capacity: int = ITEMS, error_rate: float = RATE, seed: int = 0) -> Throughput:
    case, how = target.throughput_case(capacity, error_rate)
    inserted = unique_items(f"{seed}:throughput:insert", capacity)
    fresh = unique_items(f"{seed}:throughput:query", capacity, avoid=inserted)
    try:
        adapter = target.build_for_speed(case)
    except CaseRefused as refused:
        return Throughput(target.name, target.version, capacity, error_rate, str(refused), None, None, None, None)
    start = time.perf_counter()
    adapter.insert_many(inserted)
    filled = time.perf_counter()
    adapter.contains_many(fresh)
    done = time.perf_counter()
    inserts, queries = capacity / max(filled - start, 1e-9), capacity / max(done - filled, 1e-9)
    return Throughput(target.name, target.version, capacity, error_rate, how, adapter.m, adapter.k, inserts, queries)
