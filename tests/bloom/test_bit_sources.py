"""Which holder is a filter's bit array: the one whose set bits only grow as items go in, read without running it."""

from __future__ import annotations

import array
import pickle
from typing import Any

import pytest

from dedup_harness.bloom_audit.bit_sources import BitArrayWatch, holders, set_bits_of


@pytest.mark.parametrize(
    ("value", "bits"),
    [
        (bytearray(b"\x01\x80"), {0, 15}),
        (b"\x03", {0, 1}),
        (array.array("Q", [1 << 63, 1]), {63, 64}),
        (0b1010, {1, 3}),
        ({2, 9}, {2, 9}),
        ([False, True, True], {1, 2}),
        (memoryview(b"\x10"), {4}),
    ],
)
def test_each_kind_of_holder_reads_its_set_bits_lowest_bit_first(value: Any, bits: set[int]) -> None:
    assert set_bits_of(value) == bits


@pytest.mark.parametrize("value", [True, -1, "bits", [1, 2], {"a"}, None, 2.5])
def test_what_holds_no_bits_is_not_read_as_bits(value: Any) -> None:
    assert set_bits_of(value) is None


def test_a_bitarray_is_read_through_its_own_indexing() -> None:
    bitarray = pytest.importorskip("bitarray", reason="bitarray is installed by `tox -e audit` (pybloom-live needs it)")
    bits = bitarray.bitarray("0100000001")  # big-endian: its own index, not the byte's bit order
    assert set_bits_of(bits) == {1, 9}


class Counted:
    def __init__(self) -> None:
        self.count = 0
        self.flags = bytearray(4)

    def add(self, position: int) -> None:
        self.count += 1
        self.flags[position // 8] |= 1 << (position % 8)


def test_a_counter_that_clears_bits_as_it_counts_is_dropped_and_the_bit_array_chosen() -> None:
    counted = Counted()
    watch = BitArrayWatch(counted)
    seen = None
    for position in (3, 7, 11, 19, 23, 30):
        counted.add(position)
        seen = watch.read()
    assert seen == {3, 7, 11, 19, 23, 30}
    assert watch.describe() == "its bits: the bytearray flags"
    assert "count" not in watch.last  # 1 -> 2 cleared bit 0: a Bloom filter never does


def test_a_watch_that_sees_nothing_grow_reads_none_and_says_what_it_tried() -> None:
    watch = BitArrayWatch(Counted())
    assert watch.read() is None
    assert watch.tried() == "none of count (int), flags (bytearray) only grew as items went in"


class Guarded:
    """State handed to pickle that is not its attributes: read, never unpickled."""

    def __init__(self) -> None:
        self._hidden = lambda: b"\x05"

    def __reduce__(self) -> tuple[Any, ...]:
        return (bytes, (b"\x05",))


def test_the_pickle_state_is_read_as_pickle_dumps_would_ask_for_it_and_nothing_is_unpickled() -> None:
    (holder,) = holders(Guarded())
    assert (holder.name, holder.kind, holder.size) == ("__reduce_ex__(4)[1][0]", "bytes", 8)
    assert pickle.loads(pickle.dumps(Guarded())) == b"\x05"  # what unpickling would have made: never done


def test_the_same_object_seen_twice_is_one_holder() -> None:
    counted = Counted()
    counted.alias = counted.flags  # type: ignore[attr-defined]
    assert [h.name for h in holders(counted)] == ["count", "flags"]
