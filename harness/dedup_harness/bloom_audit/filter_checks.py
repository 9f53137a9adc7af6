"""The five Bloom sizing checks, each on one case of one target, each able to fail with a named cause.

sizing (m against the filter's own formula), k (against the k its sizing implies), reachability
(every bit reachable, measured from the index function or the filter's bits), no false negatives,
and the delivered false-positive rate against the promised one within a binomial tolerance.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dedup_harness.bloom_audit.adapters import BloomAdapter
from dedup_harness.bloom_audit.binomial import (
    ALPHA,
    distinct_floor,
    expected_distinct,
    tolerated_hits,
    upper_tail_bound,
)
from dedup_harness.bloom_audit.cases import Case, Promise
from dedup_harness.bloom_audit.formulas import optimal_k, textbook_rate

PASS, FAIL, NA = "pass", "fail", "n/a"
QUERIES = 20_000
FILLS = 10  # independent filters the queries are spread over
REACH_DRAW_BUDGET = 400_000  # index draws per case; enough to see every bit of m <= 13,000 bits
MISS_EXPONENT = 20  # draw m (ln m + 20) indexes: a uniform index then misses some bit with probability < e**-20


@dataclass(frozen=True)
class CheckResult:
    check: str
    status: str  # pass, fail or n/a
    reason: str
    cause: str | None = None  # a short name for the fault, when the check failed


@dataclass(frozen=True)
class Finding:
    """One fault, reported once however many rows show it (rows = 0: found by a direct probe)."""

    cause: str
    rows: int
    example: str


@dataclass(frozen=True)
class Reach:
    """What the reachability probe saw."""

    seen: int  # distinct bits reached
    draws: int  # indexes drawn (or k per inserted item, for filters read through their bits)
    items: int
    exhaustive: bool  # the draws were enough to expect every reachable bit
    saturated: bool  # no new bit in the second half of the draws
    union: int  # OR of every bit reached
    out_of_range: int | None  # an index outside range(m), if one was seen
    busiest_tenth: float | None = None  # the share of draws on the busiest tenth of the bits (index functions only)
    refused: str = ""  # the filter's own refusal that ended the probe early, in words


@dataclass(frozen=True)
class Probe:
    """What filling to capacity and querying fresh items gave."""

    inserted: int
    false_negatives: int
    first_false_negative: int | None
    queries: int
    false_positives: int


def unique_items(seed: str, count: int, *, avoid: Sequence[bytes] = ()) -> list[bytes]:
    """``count`` distinct random 16-byte items from a seeded generator, none of them in ``avoid``."""
    rng = random.Random(seed)
    taken = set(avoid)
    items: list[bytes] = []
    while len(items) < count:
        item = rng.randbytes(16)
        if item not in taken:
            taken.add(item)
            items.append(item)
    return items


def check_sizing(adapter: BloomAdapter, promise: Promise) -> CheckResult:
    if adapter.m is None:
        return CheckResult("sizing", NA, "the filter does not expose its bit count")
    if promise.m is None:
        return CheckResult("sizing", NA, f"m = {adapter.m}; the filter documents no rule for its bit count")
    if adapter.m == promise.m:
        return CheckResult("sizing", PASS, f"m = {adapter.m}, as its formula gives")
    return CheckResult(
        "sizing", FAIL, f"m = {adapter.m} bits where its formula gives {promise.m}", cause="bit count off its formula"
    )


def check_k(adapter: BloomAdapter, promise: Promise, case: Case) -> CheckResult:
    k = adapter.k
    if k is None:
        return CheckResult("k", NA, "the filter does not expose k")
    if k < 1:
        return CheckResult("k", FAIL, f"k = {k}: no bit is tested, so every query answers present", cause="k = 0")
    if case.k is not None and k != case.k:
        return CheckResult("k", FAIL, f"k = {k} where it was built with k = {case.k}", cause="k off what it was given")
    if case.k is not None:
        return CheckResult("k", PASS, f"k = {k}, given by the caller")
    if promise.k is None:
        best = optimal_k(adapter.m, case.capacity) if adapter.m else None
        if best is None:
            return CheckResult("k", NA, f"k = {k}; its bit count is hidden, so the optimal k is unknown")
        if abs(k - best) < 1:
            return CheckResult("k", PASS, f"k = {k}, within 1 of the optimal {best:.2f} for its m and n")
        cause = _k_cause(k, round(best), "k off the optimum")
        return CheckResult("k", FAIL, f"k = {k}, not within 1 of the optimal {best:.2f}", cause=cause)
    if k == promise.k:
        return CheckResult("k", PASS, f"k = {k}, as its sizing implies")
    return CheckResult("k", FAIL, _k_reason(k, promise.k, adapter, case), cause=_k_cause(k, promise.k))


def _k_cause(k: int, implied: int, otherwise: str = "k off its own sizing") -> str:
    # Rounding either way keeps k within 8 of 8 times the right k: bits passed where bytes are expected.
    return "k from bits where bytes are expected (x8)" if implied >= 2 and abs(k - 8 * implied) < 8 else otherwise


def _k_reason(k: int, implied: int, adapter: BloomAdapter, case: Case) -> str:
    factor = f" ({k / implied:.1f}x)" if implied else ""
    reason = f"k = {k} where its sizing implies {implied}{factor}"
    if _k_cause(k, implied).endswith("(x8)"):
        reason += ": the k formula was given the bit count where it expects bytes"
    if adapter.m:
        used, meant = textbook_rate(adapter.m, k, case.capacity), textbook_rate(adapter.m, implied, case.capacity)
        reason += f"; its bits then give a rate of {used:.3g} instead of {meant:.3g}"
    return reason


def probe_reach(adapter: BloomAdapter, seed: str, capacity: int, budget: int = REACH_DRAW_BUDGET) -> Reach | None:
    """Draw indexes (or insert items and read the bits) until every bit is seen, the budget is spent or it refuses.

    None when neither can be read: no index function, and no bits (or none that grow as items go in).
    A filter that refuses an insert (full at its capacity, as pybloom-live's is) is judged on what it took.
    """
    m, k = adapter.bits_to_reach(), adapter.k
    if m is None or not (adapter.has_indexes or adapter.shows_bits()):
        return None
    per_item = max(k or 1, 1)
    wanted = min(budget, math.ceil(m * (math.log(m) + MISS_EXPONENT)))
    rng = random.Random(seed)
    seen: set[int] = set()
    hits: Counter[int] = Counter()  # per bit, where the index function is read
    draws = items = last_new = 0
    refused = ""
    while draws < wanted and len(seen) < m and not refused:
        # small batches, so "no new bit in the second half of the draws" can be seen
        batch = [rng.randbytes(16) for _ in range(max(16, min(4096, wanted // (per_item * 32) + 1)))]
        before = len(seen)
        if adapter.has_indexes:
            items += len(batch)
            for row in adapter.indexes_many(batch):
                hits.update(row)
                draws += len(row)
            seen = set(hits)
        else:
            for item in batch:
                try:
                    adapter.insert(item)
                except Exception as exc:  # the filter's own refusal: a finding; the bits it took are judged
                    refused = refusal(exc, items, capacity)
                    break
                items += 1
                if items <= 2:  # read after one item and two: a counter beside the bits (1, then 2) is dropped at once
                    adapter.set_bits()
            now = adapter.set_bits()
            if now is None:
                return None  # no holder of bits grew as items went in: its bits are not where they can be read
            seen = set(now)
            draws = items * (k if k is not None else 1)
        if len(seen) > before:
            last_new = draws
        if draws == 0:
            break  # the filter sets no bit at all (k = 0): nothing more to learn
    if not (adapter.has_indexes or adapter.shows_bits()):
        return None  # holders with other bits all grew as items went in: which is its bit array is not guessed
    out_of_range = next((b for b in seen if not 0 <= b < m), None)
    union = 0
    for b in seen:
        union |= max(b, 0)
    exhaustive = draws >= math.ceil(m * (math.log(m) + MISS_EXPONENT))
    busiest = _busiest_tenth(hits, m) if hits else None
    saturated = 2 * last_new <= draws
    return Reach(len(seen), draws, items, exhaustive, saturated, union, out_of_range, busiest, refused)


def refusal(exc: Exception, inserted: int, capacity: int) -> str:
    """A filter's own exception on an insert, in the report's words."""
    what = "an insert at capacity" if inserted >= capacity else "an insert"
    return f"refused {what} after {inserted} items ({type(exc).__name__}: {exc}): the audit sized it for {capacity}"


def _busiest_tenth(hits: Counter[int], m: int) -> float:
    """The share of all draws that landed on the busiest tenth of the m bits (a uniform index: about 0.1)."""
    top = [count for _, count in hits.most_common(max(1, m // 10))]
    return sum(top) / sum(hits.values())


def check_reachability(adapter: BloomAdapter, reach: Reach | None, alpha: float = ALPHA) -> CheckResult:
    m = adapter.bits_to_reach()
    if reach is None or m is None:
        return CheckResult("reachability", NA, adapter.unread())
    source = f" ({adapter.read_from()})" if adapter.read_from() else ""
    source += f"; it {reach.refused}" if reach.refused else ""
    if reach.out_of_range is not None:
        reason = f"index {reach.out_of_range} lies outside range({m}){source}"
        return CheckResult("reachability", FAIL, reason, "index range")
    if reach.seen == m:
        return CheckResult("reachability", PASS, f"all {m} bits reached{source}")
    if reach.draws == 0:
        return CheckResult("reachability", FAIL, f"no bit of {m} is ever set: items get no indexes", "k = 0")
    if reach.exhaustive:
        why = " (a uniform index misses a bit with probability < 1e-8)"
    elif reach.seen < distinct_floor(m, reach.draws, reach.items, adapter.k or 1, alpha):
        why = f", where a uniform index reaches about {expected_distinct(m, reach.draws):.0f}"
    else:
        reason = f"{reach.seen} distinct bits in {reach.draws} draws, as a uniform index over {m} bits gives{source}"
        return CheckResult("reachability", PASS, reason)
    reason = f"only {reach.seen} of {m} bits reached in {reach.draws} draws{why}"
    mask = _mask_diagnosis(reach, m)
    if mask:
        return CheckResult("reachability", FAIL, reason + mask + source, "index reduced by a mask")
    if not reach.saturated:
        return CheckResult("reachability", FAIL, reason + _skew_diagnosis(reach) + source, "index skewed")
    return CheckResult("reachability", FAIL, reason + source, "unreachable bits")


def _skew_diagnosis(reach: Reach) -> str:
    """Bits still being found late: the index reaches them, but far less often than others."""
    text = ": new bits were still being found in the second half of the draws, so more are reachable but rarely hit"
    if reach.busiest_tenth is not None:
        text += f"; the busiest tenth of the bits took {reach.busiest_tenth:.0%} of the draws (a uniform index: 10%)"
    return text


def _mask_diagnosis(reach: Reach, m: int) -> str:
    """Name a bitwise AND when the bits reached are exactly the submasks of their union."""
    lattice = 2 ** bin(reach.union).count("1")
    if not reach.saturated or reach.seen != lattice or lattice >= m:
        return ""
    union = reach.union
    text = f": exactly the 2**popcount({union}) = {lattice} submasks of {union}, an index ANDed with {union}"
    if m % 8 == 0 and reach.union == m // 8:
        text += " (= m/8, the size in bytes: `& m_bytes`)"
    return text


def probe_capacity(
    build: Callable[[], BloomAdapter], seed: str, capacity: int, queries: int = QUERIES, fills: int = FILLS
) -> Probe:
    """Fill ``fills`` fresh filters with ``capacity`` unique items each, read them back, query fresh items.

    One filter's rate depends on which bits its items happened to set (a spread that grows with k);
    spreading the queries over several fills averages that out, so the binomial tolerance is fair.
    """
    missing: list[int] = []
    hits = 0
    for fill in range(fills):
        adapter = build()
        inserted = unique_items(f"{seed}:{fill}:insert", capacity)
        adapter.insert_many(inserted)
        answers = adapter.contains_many(inserted)
        missing += [fill * capacity + i for i, present in enumerate(answers) if not present]
        fresh = unique_items(f"{seed}:{fill}:query", queries // fills, avoid=inserted)
        hits += sum(adapter.contains_many(fresh))
    asked = fills * (queries // fills)
    return Probe(fills * capacity, len(missing), missing[0] if missing else None, asked, hits)


def check_false_negatives(probe: Probe) -> CheckResult:
    if probe.false_negatives == 0:
        return CheckResult("no false negatives", PASS, f"all {probe.inserted} inserted items read as present")
    reason = (
        f"{probe.false_negatives} of {probe.inserted} inserted items read as absent"
        f" (the first is item #{probe.first_false_negative})"
    )
    return CheckResult("no false negatives", FAIL, reason, "false negatives")


def check_delivered_rate(
    probe: Probe, promise: Promise, adapter: BloomAdapter, case: Case, alpha: float = ALPHA
) -> CheckResult:
    delivered = probe.false_positives / probe.queries
    tolerated = tolerated_hits(probe.queries, promise.rate, alpha)
    summary = f"{probe.false_positives} of {probe.queries} fresh items read as present ({delivered:.3g})"
    if upper_tail_bound(probe.false_positives, probe.queries, promise.rate) >= alpha:
        return CheckResult("delivered rate", PASS, f"{summary}; promised {promise.rate:.3g}, tolerance {tolerated}")
    reason = f"{summary} where {promise.rate:.3g} is promised: above the {tolerated} a binomial tolerance allows"
    if adapter.m and adapter.k is not None and adapter.k >= 1:
        own = textbook_rate(adapter.m, adapter.k, case.capacity)
        if own > promise.rate * 1.05:
            reason += f"; its own m = {adapter.m} and k = {adapter.k} give {own:.3g} even with a perfect index"
    return CheckResult("delivered rate", FAIL, reason, "rate above its promise")
