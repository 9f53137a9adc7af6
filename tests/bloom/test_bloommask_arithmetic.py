"""The bloommask report's arithmetic: the reachable-index law and the logged versus delivered rate."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dedup_harness.bloom_audit.datatrove_mask import delivered_rate, law_rows, logged_rate, popcount, reachable_by_law

from .sizes import bit_sizes


@given(m_bytes=bit_sizes(1, 24))
def test_an_and_with_m_bytes_reaches_exactly_its_submasks(m_bytes: int) -> None:
    rng = random.Random(m_bytes)
    reached = {
        rng.getrandbits(64) & m_bytes for _ in range(40 * reachable_by_law(m_bytes) if popcount(m_bytes) <= 8 else 2000)
    }
    assert all(r & ~m_bytes == 0 for r in reached)
    if popcount(m_bytes) <= 8:  # small enough to collect every submask
        assert len(reached) == reachable_by_law(m_bytes) == 2 ** popcount(m_bytes)


@given(p=st.integers(1, 30))
def test_a_power_of_two_size_collapses_to_two_bits_and_all_ones_looks_like_a_modulo(p: int) -> None:
    assert reachable_by_law(2**p) == 2
    assert reachable_by_law(2**p - 1) == 2**p  # hash & (2**p - 1) == hash % 2**p


def test_the_report_table_of_reachable_fractions() -> None:
    fractions = {row.label: (row.reachable, round(row.fraction, 10)) for row in law_rows()}
    assert fractions == {
        "2**20": (2, round(2 / 8388608, 10)),
        "2**16": (2, round(2 / 524288, 10)),
        "1000": (64, 0.008),
        "2**10 - 1": (1024, round(1024 / 8184, 10)),
    }


def test_logged_about_2_8e_minus_29_delivered_1_at_2_to_the_20_bytes_k_7_and_100_items() -> None:
    assert logged_rate(2**20, 100, 7) == pytest.approx(2.8e-29, rel=0.02)
    assert delivered_rate(2**20, 100, 7) == pytest.approx(1.0, abs=1e-12)
