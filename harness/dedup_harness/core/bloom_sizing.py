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
# Standard deviations of slack in the false-positive budget: a correct filter meets more false
# positives than its expected count plus four standard deviations about three times in 100,000 runs
# (the normal tail above 4 sigma).
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
    """The most false positives ``items`` unique paragraphs may meet, screened into a filter sized for them at
    ``error_rate`` by this rule (with SLACK standard deviations).

    Each paragraph is asked about once, as the filter fills: the t-th meets a filter holding t items,
    which reads "present" with probability (1 - e**(-k t / m))**k. The count is a sum of such draws;
    its mean and variance are the sums over t. (Far below ``items * error_rate``: the filter reaches
    its promised rate only when full.) A whole number: at B = 10 it is 0 for any corpus a test can build.
    """
    m = bits(items, error_rate)
    k = hashes(m, items)
    draws = [(1 - math.exp(-k * t / m)) ** k for t in range(items)]
    mean, variance = sum(draws), sum(q * (1 - q) for q in draws)
    return math.floor(mean + SLACK * math.sqrt(variance))
