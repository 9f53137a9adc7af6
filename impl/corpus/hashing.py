"""The course's two small hash functions (module M06.3): FNV-1a and SplitMix64, both 64-bit."""

from __future__ import annotations

MASK64 = (1 << 64) - 1

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3

GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def fnv1a_64(data: bytes) -> int:
    """FNV-1a over ``data``: xor in each byte, then multiply by the FNV prime (mod 2**64)."""
    h = FNV_OFFSET
    for byte in data:
        h = ((h ^ byte) * FNV_PRIME) & MASK64
    return h


def splitmix64(x: int) -> int:
    """One SplitMix64 step from state ``x``: a cheap, well-mixed 64-bit output."""
    z = (x + GOLDEN_GAMMA) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)
