"""Pass 2 of the external sort in numpy, many digests at a time: where ``dedup``'s speed comes from.

The reference's ``screen()`` (impl/corpus/dedup.py) is the definition: each digest in input order,
"present" makes it a candidate, "new" inserts it. ``screen_batch`` gives exactly the same answers and
leaves the filter with exactly the same bits, thousands of digests per numpy pass. The external
stage (dedup.py beside this file) uses it when numpy is installed and runs the same loop as the
reference without it; tests/external/test_bloom_batch.py compares the two digest by digest and bit by bit.

uint64 arithmetic in numpy wraps around, so a multiplication there is exactly "mod 2**64".
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from corpus.hashing import FNV_OFFSET, FNV_PRIME, GOLDEN_GAMMA, MASK64, fnv1a_64

U64 = NDArray[np.uint64]

# The two multipliers of SplitMix64's finaliser (corpus.hashing.splitmix64).
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def fnv1a_64_many(items: Sequence[bytes]) -> U64:
    """``fnv1a_64`` of every item. Items of one length (digests) are hashed a byte column at a time."""
    lengths = {len(item) for item in items}
    if len(lengths) != 1:
        return np.fromiter((fnv1a_64(item) for item in items), dtype=np.uint64, count=len(items))
    width = lengths.pop()
    h = np.full(len(items), FNV_OFFSET, dtype=np.uint64)
    if width:
        columns = np.frombuffer(b"".join(items), dtype=np.uint8).reshape(len(items), width)
        prime = np.uint64(FNV_PRIME)
        for c in range(width):
            h ^= columns[:, c]
            h *= prime
    return h


def bit_indexes_many(items: Sequence[bytes], m: int, k: int) -> U64:
    """Row t holds the k bit positions of ``items[t]``: splitmix64((h + i * GOLDEN_GAMMA) mod 2**64) mod m."""
    # SplitMix64 first adds GOLDEN_GAMMA to its state; folding that into the per-i offsets saves a pass.
    offsets = np.array([((i + 1) * GOLDEN_GAMMA) & MASK64 for i in range(k)], dtype=np.uint64)
    z = fnv1a_64_many(items)[:, None] + offsets[None, :]
    scratch = np.empty_like(z)  # in-place steps: no fresh array per operation
    for shift, multiplier in ((30, _MIX1), (27, _MIX2)):
        z ^= np.right_shift(z, np.uint64(shift), out=scratch)
        z *= multiplier
    z ^= np.right_shift(z, np.uint64(31), out=scratch)
    bits: U64 = z % np.uint64(m)  # the filter's rule, mod m (corpus.bloom.bit_indexes), on the whole array
    return bits


CHUNK = 4096  # items per numpy pass: big enough to pay numpy's overhead, small enough for the cache
# A chunk packs (bit, item) pairs into 64 bits: bits below 2**52. (A filter that big would need
# 512 TiB of memory before it got here.)
MAX_BITS = 1 << (64 - (CHUNK - 1).bit_length())


def screen_batch(bits: bytearray, m: int, k: int, items: Sequence[bytes]) -> list[bool]:
    """For each item in order: was it reported present? Items reported new are inserted (into ``bits``).

    Exactly ``contains`` then, when new, ``insert`` item by item, so an item inserted early in the
    batch can make a later one read present; ``CHUNK`` items at a time.

    What a chunk asks of the filter does not depend on the filter, only the answers do; so while one
    chunk meets the filter, a helper thread already works out the next (numpy lets go of the GIL for
    the heavy steps). The answers are the same as one chunk after the other.
    """
    store = np.frombuffer(bits, dtype=np.uint8)  # a writable view: the bytearray itself is updated
    if len(items) <= CHUNK:  # one chunk: nothing to work out ahead, and a thread costs more than it saves
        return _meet_filter(store, _chunk_bits(items, m, k))
    answers: list[bool] = []
    with ThreadPoolExecutor(1) as helper:
        ahead = helper.submit(_chunk_bits, items[:CHUNK], m, k)  # the chunk the helper is working out
        for s in range(CHUNK, len(items), CHUNK):
            chunk, ahead = ahead, helper.submit(_chunk_bits, items[s : s + CHUNK], m, k)
            answers += _meet_filter(store, chunk.result())
        answers += _meet_filter(store, ahead.result())
    return answers


@dataclass(frozen=True)
class ChunkBits:
    """Every distinct bit a chunk's items hash to, ascending, and the earliest item that has it."""

    count: int  # items in the chunk
    byte: NDArray[np.int64]  # bit b is bit b & 7 of byte b >> 3 ...
    mask: NDArray[np.uint8]  # ... that is, byte[i] & mask[i]
    owner: NDArray[np.int64]  # the place in the chunk of the earliest item with that bit


def _chunk_bits(items: Sequence[bytes], m: int, k: int) -> ChunkBits:
    """The chunk's bits and their earliest owners: sort (bit, item) pairs, keep the first pair of each bit."""
    n = len(items)
    shift = np.uint64(max(1, (n - 1).bit_length()))
    pairs = bit_indexes_many(items, m, k)
    pairs <<= shift
    pairs |= np.arange(n, dtype=np.uint64)[:, None]
    pairs = pairs.ravel()
    pairs.sort()  # by bit, then by item
    bit = pairs >> shift
    first = _run_starts(bit)
    bit, pairs = bit[first], pairs[first]
    return ChunkBits(
        count=n,
        byte=(bit >> np.uint64(3)).view(np.int64),
        mask=np.left_shift(np.uint8(1), (bit & np.uint64(7)).astype(np.uint8)),
        owner=(pairs & ((np.uint64(1) << shift) - np.uint64(1))).view(np.int64),
    )


def _meet_filter(store: NDArray[np.uint8], chunk: ChunkBits) -> list[bool]:
    """The answers for one chunk's items, in order, with the filter's bits updated.

    Item t reads present iff each of its bits was set before the chunk or belongs to an earlier
    item s < t of the chunk. (An earlier item that read present has only bits already set, so
    "belongs to" may stand for "was set by".) So an item reads new exactly when it is the earliest
    owner of some bit the filter did not have: the owners of the unset bits are the new items, and
    setting those bits inserts them. The bits come in ascending order, so the reads and writes walk
    the filter in order, which is kinder to the cache than k random probes per item.
    """
    unset = store[chunk.byte] & chunk.mask == 0
    present = np.ones(chunk.count, dtype=bool)
    present[chunk.owner[unset]] = False
    _set_bits(store, chunk.byte[unset], chunk.mask[unset])
    return present.tolist()


def _run_starts(values: NDArray[Any]) -> NDArray[np.bool_]:
    """True where a sorted array's value differs from the one before it (and at the start)."""
    starts = np.empty(values.size, dtype=bool)
    starts[:1] = True
    np.not_equal(values[1:], values[:-1], out=starts[1:])
    return starts


def _set_bits(store: NDArray[np.uint8], byte: NDArray[np.int64], mask: NDArray[np.uint8]) -> None:
    """``store[byte[i]] |= mask[i]`` for every i, where ``byte`` is ascending and may repeat.

    A fancy-indexed ``|=`` keeps one write per repeated byte, so each round sets the first bit of every
    byte still waiting and leaves the rest for the next round: at most 8 rounds, most bytes done in one.
    """
    while byte.size:
        first = _run_starts(byte)
        store[byte[first]] |= mask[first]
        byte, mask = byte[~first], mask[~first]
