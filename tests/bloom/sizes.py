"""Hypothesis strategies for the size families that matter to index bugs."""

from __future__ import annotations

from hypothesis import strategies as st


def is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, int(n**0.5) + 1))


def next_prime(n: int) -> int:
    while not is_prime(n):
        n += 1
    return n


def bit_sizes(lo_power: int = 3, hi_power: int = 10) -> st.SearchStrategy[int]:
    """Powers of two, all-ones numbers (2**p - 1), primes and arbitrary numbers, between 2**lo and 2**hi."""
    powers = st.integers(lo_power, hi_power)
    return st.one_of(
        powers.map(lambda p: 2**p),
        powers.map(lambda p: 2**p - 1),
        st.integers(2**lo_power, 2**hi_power).map(next_prime),
        st.integers(2**lo_power, 2**hi_power),
    )
