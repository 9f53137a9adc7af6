"""Which holder is a filter's bit array: the one whose set bits only grow as items go in, read without running it."""

from __future__ import annotations

import array
import pickle
from typing import Any

import pytest

from dedup_harness.bloom_audit.bit_sources import BitArrayWatch, holders, set_bits_of


@pytest.mark.parametrize(
    ("value", "m", "bits"),
    [
        (bytearray(b"\x01\x80"), 16, {0, 15}),
        (b"\x03", 5, {0, 1}),
        (array.array("Q", [1 << 63, 1]), 100, {63, 64}),
        (0b1010, 4, {1, 3}),
        ([False, True, True], 3, {1, 2}),
        ([0, 1, 0, 1], 4, {1, 3}),
        ([1, 0x80, 0], 20, {0, 15}),
        ([1 << 31, 1], 64, {31, 32}),
        ([1 << 63], 64, {63}),
        (memoryview(b"\x10"), 8, {4}),
        (bytearray([0, 1, 1]), 3, {1, 2}),  # a buffer of m flags (a numpy array of booleans, a bytearray of m)
    ],
)
def test_a_whole_array_of_m_bits_reads_its_set_bits_lowest_bit_first(value: Any, m: int, bits: set[int]) -> None:
    assert set_bits_of(value, m) == bits


@pytest.mark.parametrize(
    ("value", "m"),
    [
        (True, 8),
        (-1, 8),
        ("bits", 32),
        ({2, 9}, 16),
        (None, 8),
        (2.5, 8),
        (bytearray(2), 8),  # room for 16 bits: more than a byte to spare
        (bytearray(2), 17),
        ([0] * 15, 1024),  # 15 words of any width: not 1,024 bits
        ([0, 256], 16),  # 256 does not fit a byte
        (1 << 8, 8),
    ],
)
def test_what_is_not_the_whole_array_of_m_bits_is_not_read(value: Any, m: int) -> None:
    assert set_bits_of(value, m) is None


def test_a_bitarray_is_read_through_its_own_indexing() -> None:
    bitarray = pytest.importorskip("bitarray", reason="bitarray is installed by `tox -e audit` (pybloom-live needs it)")
    bits = bitarray.bitarray("0100000001")  # big-endian: its own index, not the byte's bit order
    assert set_bits_of(bits, 10) == {1, 9} and set_bits_of(bits, 16) is None


class Counted:
    def __init__(self) -> None:
        self.count = 0
        self.flags = bytearray(4)

    def add(self, position: int) -> None:
        self.count += 1
        self.flags[position // 8] |= 1 << (position % 8)


def test_a_counter_that_clears_bits_as_it_counts_is_dropped_and_the_bit_array_chosen() -> None:
    counted = Counted()
    watch = BitArrayWatch(counted, 32)
    seen = None
    for position in (3, 7, 11, 19, 23, 30):
        counted.add(position)
        seen = watch.read()
    assert seen == {3, 7, 11, 19, 23, 30}
    assert watch.describe() == "its bits: the bytearray flags"
    assert "count" not in watch.last  # 1 -> 2 cleared bit 0: a Bloom filter never does


def test_a_watch_that_sees_nothing_grow_reads_none_and_says_what_it_tried() -> None:
    watch = BitArrayWatch(Counted(), 32)
    assert watch.read() is None
    assert watch.tried() == "none of count (int), flags (bytearray) only grew as items went in"


class Cached(Counted):
    """Its bits, and a bytes copy of them for saving: two holders, always the same bits."""

    def __init__(self) -> None:
        super().__init__()
        self.saved = bytes(self.flags)

    def add(self, position: int) -> None:
        super().add(position)
        self.saved = bytes(self.flags)


class Mirrored(Cached):
    """Its bits, and the same bits in the other order (bit 31 - b): two holders that grow apart."""

    def add(self, position: int) -> None:
        super().add(position)
        self.saved = bytes(reversed([int(f"{byte:08b}"[::-1], 2) for byte in self.flags]))


def test_a_copy_of_the_bits_beside_them_is_no_rival_and_they_are_read() -> None:
    cached = Cached()
    watch = BitArrayWatch(cached, 32)
    for position in (3, 7, 11):
        cached.add(position)
        watch.read()
    assert watch.read() == {3, 7, 11} and watch.rivals == []


def test_two_holders_that_grew_apart_are_rivals_even_once_both_are_full() -> None:
    mirrored = Mirrored()
    watch = BitArrayWatch(mirrored, 32)
    for position in range(32):
        mirrored.add(position)
        watch.read()
    assert mirrored.saved == bytes(mirrored.flags) == b"\xff" * 4  # the same bits now, not all along
    assert [holder.name for holder in watch.rivals] == ["flags", "saved"]
    assert watch.tried().startswith("flags (bytearray) and saved (bytes) each grew as items went in, with other bits")


class Guarded:
    """State handed to pickle that is not its attributes: read, never unpickled."""

    def __init__(self) -> None:
        self._hidden = lambda: b"\x05"

    def __reduce__(self) -> tuple[Any, ...]:
        return (bytes, (b"\x05",))


def test_the_pickle_state_is_read_as_pickle_dumps_would_ask_for_it_and_nothing_is_unpickled() -> None:
    (holder,) = holders(Guarded(), 8)
    assert (holder.name, holder.kind) == ("__reduce_ex__(4)[1][0]", "bytes")
    assert pickle.loads(pickle.dumps(Guarded())) == b"\x05"  # what unpickling would have made: never done


def test_the_same_object_seen_twice_is_one_holder() -> None:
    counted = Counted()
    counted.alias = counted.flags  # type: ignore[attr-defined]
    assert [h.name for h in holders(counted, 32)] == ["count", "flags"]
