"""A filter's bits in any layout get the verdict its index earns: never failed for where it keeps them.

The filters are written here as a maintainer would, in a file of their own in another folder, and
named to the command by its path: bits in a list of bytes inside a dict (beside a counter), in a list
of 32-bit words, in one int, and the mask bug (`& m_bytes`) in the list layout. A list whose words do
not account for m (16-bit words) is not read at all: judged by the rate, said in words.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.bloom_audit import cases
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


@pytest.fixture
def audited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    """The command's JSON entry for a class of FILTERS, named by its file's path from another folder."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))  # each test imports the file afresh
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "layouts_bloom.py").write_text(FILTERS, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    # 1,024 bits: a whole number of bytes and of 32-bit words; 1,023: one bit short of both
    monkeypatch.setattr(cases, "RATE_SIZED_GRID", (("power of two", 1024, 9.6), ("all-ones", 1023, 14.4)))
    monkeypatch.setenv("PYTHONHASHSEED", "0")  # the audit stays in this process, where the grid is patched

    def audit(name: str, status: int) -> dict[str, Any]:
        assert main(["audit-bloom", f"../theirs/layouts_bloom.py:{name}", "--json", "-"]) == status
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
