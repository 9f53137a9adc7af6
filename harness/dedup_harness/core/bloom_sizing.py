"""The Bloom filter's promises, as the trusted side computes them: the rate, the bits, the hashes, the budget.

The course's sizing rule: a filter of B bytes (8B bits) per item promises the false-positive rate
p = exp(-8B (ln 2)**2); for N items at rate p it holds m = ceil(-N ln p / (ln 2)**2) bits (N at least
1) and k = max(1, round(m / N ln 2)) hashes. The reference carries its own copy of these rules,
because it is the code students write and read; every check, the preflight and the shrinker take
them from here, never from the implementation under test.
"""

from __future__ import annotations

import math

LN2 = math.log(2)
# Standard deviations of slack in the false-positive budget. Each unique paragraph meets the filter
# once, while it fills, so its chance to read "present" is at most p; the count of false positives
# among N paragraphs is then at most binomial(N, p), whose mean plus four standard deviations a
# correct filter exceeds about three times in 100,000 runs (the normal tail above 4 sigma).
SLACK = 4


def rate(bloom_bytes_per_item: float) -> float:
    """The false-positive rate a filter of ``bloom_bytes_per_item`` bytes per item promises: exp(-8B (ln 2)**2)."""
    return math.exp(-8 * bloom_bytes_per_item * LN2**2)


def bits(items: int, error_rate: float) -> int:
    """The bits m that hold ``items`` (at least one) at ``error_rate``."""
    return max(1, math.ceil(-max(items, 1) * math.log(error_rate) / LN2**2))


def hashes(m: int, items: int) -> int:
    """The optimal hash count k for m bits and ``items`` items (at least one)."""
    return max(1, round(m / max(items, 1) * LN2))


def budget(items: int, error_rate: float) -> int:
    """The most false positives ``items`` unique paragraphs may meet at ``error_rate`` (with SLACK deviations).

    A whole number: at B = 10 (p = 2e-17) it is 0 for any corpus a test can build.
    """
    mean = items * error_rate
    return math.floor(mean + SLACK * math.sqrt(mean * (1 - error_rate)))
