"""datatrove 0.10.1 through the maintainers' API, driven as a test of its own would drive SingleBloomFilter."""

from __future__ import annotations

import math
from typing import Any

from dedup_harness.bloom_audit.testing import audit_filter

from .requirements import require

bloom = require("datatrove.pipeline.dedup.bloom_filter")
np = require("numpy")
WordTokenizer = require("datatrove.utils.word_tokenizers").WordTokenizer
require("loguru").logger.disable("datatrove")  # it logs its promised rate at every construction


class Words(WordTokenizer):  # type: ignore[misc]
    def word_tokenize(self, text: str) -> list[str]:
        return text.split()

    def sent_tokenize(self, text: str) -> list[str]:
        return [text]

    def span_tokenize(self, text: str) -> list[tuple[int, int]]:
        return [(0, len(text))]


class ShingleFilter:
    """One item, one shingle; m_bytes from the textbook bits for the rate, k as BloomFilterConfig derives it."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        bits = math.ceil(-max(capacity, 1) * math.log(error_rate) / math.log(2) ** 2)
        config = bloom.BloomFilterConfig(m_bytes=-(-bits // 8), expected_elements=capacity)
        self.bf = bloom.SingleBloomFilter("memory://bloom", config, language=Words("en"))
        self.m, self.k = 8 * config.m_bytes, config.k

    def _indexes(self, item: bytes) -> Any:
        shingle = np.array([[self.bf.hash_fc(item.decode("latin-1"))]], dtype=np.uint64)
        return self.bf.get_indexes(shingle)[0]

    def add(self, item: bytes) -> None:
        self.bf.update_bf(self._indexes(item))

    def __contains__(self, item: bytes) -> bool:
        return bool(self.bf.query(self._indexes(item)))


def test_its_mask_is_named_with_the_bits_it_reaches_read_from_its_bit_vector() -> None:
    report = audit_filter(ShingleFilter, families=["power of two", "arbitrary"], queries=4000)
    assert [row.reachable_bits for row in report.rows] == [2, 2, 64, 32]  # 2 ** popcount(m_bytes)
    assert [f.cause for f in report.findings] == [
        "k from bits where bytes are expected (x8)",  # what the command names for datatrove
        "index reduced by a mask",
        "rate above its promise",
    ]
    reach = next(c for c in report.rows[0].checks if c.check == "reachability")
    assert "`& m_bytes`" in reach.reason and "the bytearray bf.bit_vector" in reach.reason
    assert all(r.title.endswith("it fails as the audit found") for r in report.reproductions)
