"""FNV-1a and SplitMix64 against their published vectors (course module M06.3)."""

from __future__ import annotations

import pytest

from corpus.hashing import GOLDEN_GAMMA, fnv1a_64, splitmix64


@pytest.mark.parametrize(
    ("data", "expected"),
    [(b"", 0xCBF29CE484222325), (b"a", 0xAF63DC4C8601EC8C), (b"foobar", 0x85944171F73967E8)],
)
def test_fnv1a_64_matches_the_reference_vectors(data: bytes, expected: int) -> None:
    assert fnv1a_64(data) == expected


def test_fnv1a_64_stays_within_64_bits_on_long_input() -> None:
    assert 0 <= fnv1a_64(bytes(range(256)) * 64) < 2**64


# A SplitMix64 generator seeded with 0 outputs splitmix64(0), splitmix64(gamma), splitmix64(2 gamma), ...
SEEDED_ZERO = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F, 0xF88BB8A8724C81EC]


@pytest.mark.parametrize(("step", "expected"), list(enumerate(SEEDED_ZERO)))
def test_splitmix64_reproduces_the_generator_seeded_with_zero(step: int, expected: int) -> None:
    assert splitmix64(step * GOLDEN_GAMMA % 2**64) == expected


def test_splitmix64_wraps_around_at_2_to_the_64() -> None:
    """x + gamma overflows for the largest inputs: the state wraps to 0 (and mixing 0 gives 0)."""
    assert splitmix64(2**64 - GOLDEN_GAMMA) == 0
    assert 0 <= splitmix64(2**64 - 1) < 2**64
