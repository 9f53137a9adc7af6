"""The two statistical tolerances of the Bloom audit, both rigorous bounds rather than approximations.

- Delivered rate: with the filter's promised rate p, the false positives among q fresh queries are at
  most Binomial(q, p). The Chernoff bound ``P(X >= x) <= exp(-q KL(x/q || p))`` is an upper bound on
  that tail, so rejecting when it falls under alpha raises a false alarm with probability below alpha.
- Reachability: a uniform index function over m bits, fed independent items, reaches about
  ``m (1 - (1 - 1/m) ** draws)`` distinct bits. One item moves the distinct count by at most k, so by
  McDiarmid's inequality the count falls more than ``k sqrt(items ln(1/alpha) / 2)`` below that with
  probability below alpha.
"""

from __future__ import annotations

import math

ALPHA = 1e-6


def _kl(a: float, p: float) -> float:
    """Kullback-Leibler divergence between Bernoulli(a) and Bernoulli(p), for a > p."""
    if p <= 0.0:
        return math.inf
    hit = a * math.log(a / p) if a > 0 else 0.0
    miss = (1 - a) * math.log((1 - a) / (1 - p)) if a < 1 else 0.0
    return hit + miss


def upper_tail_bound(hits: int, trials: int, rate: float) -> float:
    """An upper bound on ``P(Binomial(trials, rate) >= hits)``."""
    if trials <= 0 or rate >= 1.0 or hits <= rate * trials:
        return 1.0
    return math.exp(-trials * _kl(hits / trials, rate))


def tolerated_hits(trials: int, rate: float, alpha: float = ALPHA) -> int:
    """The largest count of false positives that the bound still accepts at ``alpha``."""
    lo, hi = math.floor(rate * trials), trials  # the bound is 1 at lo and falls as hits grow
    if upper_tail_bound(hi, trials, rate) >= alpha:
        return trials
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if upper_tail_bound(mid, trials, rate) >= alpha:
            lo = mid
        else:
            hi = mid
    return lo


def lowest_rate(hits: int, trials: int, alpha: float = ALPHA) -> float:
    """The lowest rate the bound does not reject for ``hits`` of ``trials``: a rate this low or higher is likely."""
    if hits <= 0 or trials <= 0:
        return 0.0
    lo, hi = 0.0, hits / trials  # rejected at lo (for hits > 0), accepted at the observed rate
    for _ in range(100):
        mid = (lo + hi) / 2
        if upper_tail_bound(hits, trials, mid) >= alpha:
            hi = mid
        else:
            lo = mid
    return hi


def expected_distinct(m: int, draws: int) -> float:
    """Distinct bits a uniform index over m bits reaches in ``draws`` draws, on average."""
    return m * -math.expm1(draws * math.log1p(-1.0 / m)) if m > 1 else float(min(draws, 1))


def distinct_floor(m: int, draws: int, items: int, k: int, alpha: float = ALPHA) -> float:
    """The distinct count below which a uniform index over m bits is rejected at ``alpha``."""
    slack = max(k, 1) * math.sqrt(items * math.log(1 / alpha) / 2)
    return expected_distinct(m, draws) - slack
