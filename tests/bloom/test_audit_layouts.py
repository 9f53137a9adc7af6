"""A filter's bits in any layout get the verdict its index earns: never failed for where it keeps them.

The filters are written here as a maintainer would, in a file of their own in another folder, and
named to the command by its path: bits in a list of bytes inside a dict (beside a counter), in a list
of 32-bit words, in one int, and the mask bug (`& m_bytes`) in the list layout. A list whose words do
not account for m (16-bit words) is not read at all: judged by the rate, said in words. HELD_OUT are
filters written apart from the audit, one file each, as their authors would: flags in a list, 64-bit
words in an array, a numpy array, the mask in a list of bytes, and bits kept twice in two bit orders
(two holders that grow: neither is guessed to be the bits); each gets its verdict from the command and
from assert_filter_ok alike.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy  # noqa: F401  (numpy_bloom.py's: imported first, as the fixture's copy of sys.modules cannot)
import pytest

from dedup_harness.bloom_audit import cases
from dedup_harness.bloom_audit.loading import load
from dedup_harness.bloom_audit.testing import FilterAuditFailed, assert_filter_ok
from dedup_harness.cli import main

FILTERS = '''
import hashlib
import math


class Words:
    """k salted SHA-256 hashes, each mod m; its bits in a list of WIDTH-bit ints under a dict, with a counter."""

    WIDTH = 8

    def __init__(self, capacity, error_rate):
        self.m = math.ceil(-capacity * math.log(error_rate) / math.log(2) ** 2)
        self.k = max(1, round(self.m / capacity * math.log(2)))
        self._state = {"words": [0] * -(-self.m // self.WIDTH), "added": 0}

    def _where(self, item):
        hashes = (hashlib.sha256(bytes([i]) + item).digest()[:8] for i in range(self.k))
        return [self.reduce(int.from_bytes(h, "big")) for h in hashes]

    def reduce(self, h):
        return h % self.m

    def add(self, item):
        self._state["added"] += 1
        for p in self._where(item):
            self._state["words"][p // self.WIDTH] |= 1 << (p % self.WIDTH)

    def __contains__(self, item):
        words = self._state["words"]
        return all(words[p // self.WIDTH] >> (p % self.WIDTH) & 1 for p in self._where(item))


class Words32(Words):
    WIDTH = 32


class Words16(Words):
    WIDTH = 16


class MaskedWords(Words):
    def reduce(self, h):
        return h & len(self._state["words"])


class OneInt(Words):
    def __init__(self, capacity, error_rate):
        super().__init__(capacity, error_rate)
        self.value = 0

    def add(self, item):
        for p in self._where(item):
            self.value |= 1 << p

    def __contains__(self, item):
        return all(self.value >> p & 1 for p in self._where(item))
'''

HELD_OUT = {
    "flags_bloom.py": """
import hashlib
import math


class BloomFilter:
    def __init__(self, capacity, error_rate=0.01):
        self.m = math.ceil(-capacity * math.log(error_rate) / math.log(2) ** 2)
        self.k = max(1, round(self.m / capacity * math.log(2)))
        self.bits = [0] * self.m
        self.count = 0

    def _indexes(self, item):
        return [int(hashlib.sha256(b"%d:" % i + item).hexdigest(), 16) % self.m for i in range(self.k)]

    def add(self, item):
        for i in self._indexes(item):
            self.bits[i] = 1
        self.count += 1

    def __contains__(self, item):
        return all(self.bits[i] for i in self._indexes(item))
""",
    "words64_bloom.py": """
import math
from array import array
from hashlib import blake2b


class Bloom:
    def __init__(self, expected, fp_rate):
        self.num_bits = int(math.ceil(expected * -math.log(fp_rate) / (math.log(2) ** 2)))
        self.num_hashes = max(1, int(round(math.log(2) * self.num_bits / expected)))
        self.words = array("Q", [0]) * ((self.num_bits + 63) // 64)

    def _probe(self, key):
        for seed in range(self.num_hashes):
            h = int.from_bytes(blake2b(key, digest_size=8, person=seed.to_bytes(8, "little")).digest(), "little")
            yield h % self.num_bits

    def put(self, key):
        for bit in self._probe(key):
            self.words[bit >> 6] |= 1 << (bit & 63)

    def might_contain(self, key):
        return all(self.words[bit >> 6] >> (bit & 63) & 1 for bit in self._probe(key))
""",
    "numpy_bloom.py": """
import hashlib
import math

import numpy as np


class NumpyBloom:
    def __init__(self, n, p):
        self.size_in_bits = math.ceil(-n * math.log(p) / math.log(2) ** 2)
        self.hash_count = max(1, round(self.size_in_bits / n * math.log(2)))
        self.table = np.zeros(self.size_in_bits, dtype=bool)
        self.items_added = 0

    def _positions(self, item):
        digest = hashlib.sha512(item).digest()
        words = np.frombuffer(digest, dtype="<u4")[: self.hash_count].astype(np.uint64)
        return words % self.size_in_bits

    def add(self, item):
        self.table[self._positions(item)] = True
        self.items_added += 1

    def __contains__(self, item):
        return bool(self.table[self._positions(item)].all())
""",
    "masked_bloom.py": """
import hashlib
import math


class ByteBloom:
    def __init__(self, capacity, error_rate):
        self.m = math.ceil(-capacity * math.log(error_rate) / math.log(2) ** 2)
        self.k = max(1, round(self.m / capacity * math.log(2)))
        self.m_bytes = (self.m + 7) // 8
        self.data = [0] * self.m_bytes

    def _hashes(self, item):
        for i in range(self.k):
            h = int.from_bytes(hashlib.md5(i.to_bytes(4, "big") + item).digest()[:8], "big")
            yield h & self.m_bytes

    def add(self, item):
        for h in self._hashes(item):
            self.data[h // 8] |= 1 << (h % 8)

    def __contains__(self, item):
        return all(self.data[h // 8] & (1 << (h % 8)) for h in self._hashes(item))
""",
    "two_orders_bloom.py": """
import hashlib
import math


class Filter:
    # its bits twice: lowest bit first, and high bit first as its file format writes them

    def __init__(self, capacity, error_rate):
        self.m = math.ceil(-capacity * math.log(error_rate) / math.log(2) ** 2)
        self.k = max(1, round(self.m / capacity * math.log(2)))
        self.bits = bytearray((self.m + 7) // 8)
        self.wire = bytearray((self.m + 7) // 8)

    def _where(self, item):
        return [int.from_bytes(hashlib.sha1(bytes([i]) + item).digest()[:8], "big") % self.m for i in range(self.k)]

    def add(self, item):
        for b in self._where(item):
            self.bits[b // 8] |= 1 << (b % 8)
            self.wire[b // 8] |= 0x80 >> (b % 8)

    def __contains__(self, item):
        return all(self.bits[b // 8] >> (b % 8) & 1 for b in self._where(item))
""",
}


@pytest.fixture
def audited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    """The command's JSON entry for a class of FILTERS, named by its file's path from another folder."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))  # each test imports the file afresh
    (tmp_path / "theirs").mkdir()
    for name, code in {"layouts_bloom.py": FILTERS, **HELD_OUT}.items():
        (tmp_path / "theirs" / name).write_text(code, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    # 1,024 bits: a whole number of bytes and of 32-bit words; 1,023: one bit short of both
    monkeypatch.setattr(cases, "RATE_SIZED_GRID", (("power of two", 1024, 9.6), ("all-ones", 1023, 14.4)))
    monkeypatch.setenv("PYTHONHASHSEED", "0")  # the audit stays in this process, where the grid is patched

    def audit(name: str, status: int, *options: str) -> dict[str, Any]:
        spec = f"../theirs/{name}" if ".py:" in name else f"../theirs/layouts_bloom.py:{name}"
        assert main(["audit-bloom", spec, *options, "--json", "-"]) == status
        (entry,) = json.loads(capsys.readouterr().out)["targets"]
        return dict(entry)

    return audit


def reachability(row: dict[str, Any]) -> dict[str, Any]:
    return dict(next(c for c in row["checks"] if c["check"] == "reachability"))


@pytest.mark.parametrize(("name", "holder"), [("Words", "list _state['words']"), ("Words32", "list _state['words']")])
def test_a_correct_filter_with_its_bits_in_a_list_of_words_passes_read_from_the_whole_list(
    audited: Any, name: str, holder: str
) -> None:
    entry = audited(name, 0)
    assert [row["reachable_bits"] for row in entry["rows"]] == [1024, 1023]
    assert all(holder in reachability(row)["reason"] for row in entry["rows"])


def test_a_correct_filter_with_its_bits_in_one_int_passes(audited: Any) -> None:
    entry = audited("OneInt", 0)
    assert [row["reachable_bits"] for row in entry["rows"]] == [1024, 1023]
    assert "the int value" in reachability(entry["rows"][0])["reason"]


def test_the_mask_in_a_list_layout_is_named_with_the_size_in_bytes_it_is_anded_with(audited: Any) -> None:
    entry = audited("MaskedWords", 1)
    first = entry["rows"][0]
    assert first["reachable_bits"] == 2 and "index reduced by a mask" in first["causes"]
    assert "an index ANDed with 128 (= m/8, the size in bytes: `& m_bytes`)" in reachability(first)["reason"]


def test_words_that_do_not_account_for_m_are_not_read_and_the_filter_is_judged_by_its_rate(audited: Any) -> None:
    entry = audited("Words16", 0)
    for row in entry["rows"]:
        check = reachability(row)
        assert check["status"] == "n/a" and check["reason"].startswith("bits not read: judged by the rate")
    assert "_state['words']" not in reachability(entry["rows"][0])["reason"]  # its counter and sizes were watched


@pytest.mark.parametrize(
    ("spec", "status", "reached", "holder"),
    [
        ("flags_bloom.py:BloomFilter", 0, [1024, 1023], "the list bits"),
        ("words64_bloom.py:Bloom", 0, [1024, 1023], "the array words"),
        ("numpy_bloom.py:NumpyBloom", 0, [1024, 1023], "the ndarray table"),
        ("masked_bloom.py:ByteBloom", 1, [2, 2], "the list data"),
    ],
)
def test_filters_written_apart_get_their_verdict_from_the_command_by_path(
    audited: Any, spec: str, status: int, reached: list[int], holder: str
) -> None:
    entry = audited(spec, status)
    assert [row["reachable_bits"] for row in entry["rows"]] == reached
    assert all(holder in reachability(row)["reason"] for row in entry["rows"])


@pytest.mark.parametrize(
    ("spec", "passes"),
    [
        ("flags_bloom.py:BloomFilter", True),
        ("words64_bloom.py:Bloom", True),
        ("numpy_bloom.py:NumpyBloom", True),
        ("two_orders_bloom.py:Filter", True),
        ("masked_bloom.py:ByteBloom", False),
        ("layouts_bloom.py:MaskedWords", False),
    ],
)
def test_filters_written_apart_get_the_verdict_from_assert_filter_ok(audited: Any, spec: str, passes: bool) -> None:
    build = load(f"../theirs/{spec}")[0]  # from another folder, by its file's path
    if passes:
        assert_filter_ok(build)
        return
    with pytest.raises(FilterAuditFailed, match="index reduced by a mask"):
        assert_filter_ok(build)


def test_two_holders_that_both_grow_are_not_guessed_between_and_the_filter_is_judged_by_its_rate(
    audited: Any,
) -> None:
    for row in audited("two_orders_bloom.py:Filter", 0)["rows"]:
        check = reachability(row)
        assert check["status"] == "n/a" and check["reason"].startswith("bits not read: judged by the rate")
        assert "bits (bytearray) and wire (bytearray) each grew as items went in, with other bits" in check["reason"]
    named = audited("two_orders_bloom.py:Filter", 0, "--bits", "bits")["rows"][0]
    assert reachability(named)["reason"] == "all 1024 bits reached (read from its bits: the bytearray bits)"


def test_assert_filter_ok_audits_a_file_from_another_folder_in_a_child_under_the_fixed_seed(
    audited: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTHONHASHSEED")  # the child audits its own (unpatched) grid: one family of it here
    with pytest.raises(FilterAuditFailed) as raised:
        assert_filter_ok(load("../theirs/masked_bloom.py:ByteBloom")[0], families=["power of two"], queries=4000)
    assert [row.reachable_bits for row in raised.value.report.rows] == [2, 2]  # 1,024 and 8,192 bits
