"""Bloom sizing arithmetic, written from docs/bloom.md and the textbook, independent of any filter it checks.

The audit compares a filter's own numbers with these: a check that reused the reference's
``bits_for`` would share its bugs.
"""

from __future__ import annotations

import math
import sys

LN2 = math.log(2)


def spec_bits(capacity: int, error_rate: float) -> int:
    """docs/bloom.md: ``m = ceil(-n ln p / (ln 2)**2)``, at least 1, with ``n = max(capacity, 1)``."""
    n = max(capacity, 1)
    return max(1, math.ceil(-n * math.log(error_rate) / LN2**2))


def spec_hashes(m: int, capacity: int) -> int:
    """docs/bloom.md: ``k = max(1, round(m / n * ln 2))``."""
    return max(1, round(m / max(capacity, 1) * LN2))


def optimal_k(m: int, capacity: int) -> float:
    """The real-valued k that minimises the false-positive rate of m bits holding ``capacity`` items."""
    return m / max(capacity, 1) * LN2


def textbook_rate(m: int, k: int, n: int) -> float:
    """The classic false-positive rate after n items: ``(1 - (1 - 1/m) ** (k n)) ** k``."""
    if k <= 0:
        return 1.0  # no bit is tested, so every query answers "present"
    filled = -math.expm1(k * n * math.log1p(-1.0 / m)) if m > 1 else 1.0
    return float(filled**k)


def rate_for_bits(capacity: int, m: int) -> float:
    """An error rate at which docs/bloom.md's rule sizes a filter for ``capacity`` items at exactly ``m`` bits.

    ``spec_bits`` falls as the rate rises; bisect on ln(rate) until it lands on m. A float rate
    reaches down to about 1e-308, so m can be at most about 1,470 bits per item.
    """
    if m < 1:
        raise ValueError(f"m must be at least 1, got {m}")
    lo, hi = math.log(sys.float_info.min), math.log1p(-1e-16)  # many bits at lo, one bit at hi
    for _ in range(200):
        mid = (lo + hi) / 2
        bits = spec_bits(capacity, math.exp(mid))
        if bits == m:
            return math.exp(mid)
        if bits > m:
            lo = mid
        else:
            hi = mid
    raise ValueError(f"no error rate sizes {capacity} items at exactly {m} bits")
