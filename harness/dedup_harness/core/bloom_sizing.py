"""The Bloom filter's promises, as the trusted side computes them: the rate, the bits, the hashes, the budget.

The course's sizing rule: a filter of B bytes (8B bits) per item promises the false-positive rate
p = exp(-8B (ln 2)**2); for N items at rate p it holds m = ceil(-N ln p / (ln 2)**2) bits (N at least
1) and k = max(1, round(m / N ln 2)) hashes. The reference carries its own copy of these rules,
because it is the code students write and read; every check, the preflight and the shrinker take
them from here, never from the implementation under test.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

LN2 = math.log(2)
# Standard deviations of slack on either side of a screen's expected false-positive count. Were the
# count normal, a correct filter would fall outside about six times in 100,000 screens. It is a sum of
# unlikely draws, whose upper tail is longer where the count is small: by the budget's own model a
# correct filter falls outside 6e-5 of the time at the budget check's B = 0.25 case (about 1,065
# expected), 9e-5 at B = 0.5 (45) and 3e-4 at B = 1 (4), 4e-4 for the check as a whole; over 20,000
# seeds a correct filter fell outside 5 times, all at B = 1 (benchmarks/false_alarms.py). That is
# the chance a correct filter of a student's own takes: the course's filter answers the same on
# every run, so a stage that uses it meets the same count every time.
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


@dataclass(frozen=True)
class FalsePositiveBudget:
    """The false positives a screen through a filter sized by the rule is expected to meet, and the range
    SLACK standard deviations allow either side of it (whole numbers; ``least`` at least 0)."""

    mean: float
    deviation: float

    @property
    def most(self) -> int:
        return math.floor(self.mean + SLACK * self.deviation)

    @property
    def least(self) -> int:
        return max(0, math.ceil(self.mean - SLACK * self.deviation))

    def allows(self, false_positives: int) -> bool:
        return self.least <= false_positives <= self.most


def budget(items: int, error_rate: float, once: Iterable[bool] | None = None) -> FalsePositiveBudget:
    """The false positives of a screen of ``items`` paragraphs through a filter sized for them at ``error_rate``
    by the rule: its m and k, what the contract fixes, never what a stage says it used.

    ``once`` says, for each distinct paragraph in the order the screen first meets it, whether it
    occurs only once (only those can end as false positives; a repeat's later occurrences add no bit);
    left out, all ``items`` are distinct. The screen asks about each distinct paragraph as the filter
    fills: the t-th meets a filter that t distinct paragraphs have hashed into, which reads "present"
    with probability (1 - e**(-k t / m))**k. (A false positive is not inserted, but its k bits are set
    already: the filter fills the same either way.) The count is a sum of such draws; its mean and
    variance are the sums of q and q (1 - q). Far below ``items * error_rate``: the filter reaches its
    promised rate only when full. At B = 10 the budget is 0 for any corpus a test can build.
    """
    m = bits(items, error_rate)
    k = hashes(m, items)
    mean = variance = 0.0
    for t, alone in enumerate([True] * items if once is None else once):
        if alone:
            q = (1 - math.exp(-k * t / m)) ** k
            mean += q
            variance += q * (1 - q)
    return FalsePositiveBudget(mean, math.sqrt(variance))
