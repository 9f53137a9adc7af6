"""What a correct stage answers for an input, from trusted sources only: the oracle, the sizing rules, the filter.

Nothing here asks the implementation under test. The output and the counts a set can know come from
the set-based oracle; the filter's size and its false-positive budget from ``core.bloom_sizing``;
the candidates and false positives from the course's own filter (the reference root's
``corpus.bloom``, which every submission is graded beside) run over the SHA-256 digests of the
oracle's paragraphs, in input order, as the contract's screen runs it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from dedup_harness.core import bloom_sizing, reference
from dedup_harness.core.bloom_sizing import FalsePositiveBudget
from dedup_harness.core.contract import STATS_KEYS

# The stats the oracle knows; the filter's three (bloom_bits, candidates, false_positives) come from the filter.
ORACLE_KEYS = ("docs_in", "paragraphs", "duplicate_paragraphs", "docs_dropped", "docs_out")


@dataclass
class Expected:
    """A correct stage's answer for ``docs`` at ``bloom_bytes_per_item``; the filter is simulated only if asked."""

    docs: Sequence[Any]
    bloom_bytes_per_item: float

    @cached_property
    def _oracle(self) -> tuple[list[Any], dict[str, int]]:
        counts: dict[str, int] = {}
        return list(reference.oracle().exact_dedup(self.docs, stats=counts)), counts

    @property
    def output(self) -> list[Any]:
        return self._oracle[0]

    @property
    def counts(self) -> dict[str, int]:
        """The stats the oracle knows (ORACLE_KEYS)."""
        return dict(self._oracle[1])

    @cached_property
    def paragraphs(self) -> list[str]:
        """Every paragraph of the input, in input order, as the rule splits them."""
        split = reference.oracle().paragraphs
        return [p for doc in self.docs for p in split(doc.text)]

    @property
    def rate(self) -> float:
        return bloom_sizing.rate(self.bloom_bytes_per_item)

    @property
    def bloom_bits(self) -> int:
        return bloom_sizing.bits(len(self.paragraphs), self.rate)

    @cached_property
    def _occurrences(self) -> Counter[str]:
        return Counter(self.paragraphs)

    @property
    def repeated(self) -> int:
        """How many distinct paragraphs occur more than once."""
        return sum(1 for n in self._occurrences.values() if n > 1)

    @cached_property
    def budget(self) -> FalsePositiveBudget:
        """The false positives a filter sized by the rule meets here, screening the paragraphs in input order."""
        once = [n == 1 for n in self._occurrences.values()]  # a Counter keeps the order of first occurrence
        return bloom_sizing.budget(len(self.paragraphs), self.rate, once)

    @cached_property
    def false_positive_paragraphs(self) -> list[str]:
        """The paragraphs the course's filter makes false positives: read "present" at their one occurrence."""
        bloom = reference.course_module("bloom").BloomFilter(len(self.paragraphs), self.rate)
        present: set[str] = set()
        for paragraph in self.paragraphs:
            digest = hashlib.sha256(paragraph.encode("utf-8")).digest()
            if bloom.contains(digest):
                present.add(paragraph)
            else:
                bloom.insert(digest)
        return [p for p in self._occurrences if p in present and self._occurrences[p] == 1]

    @property
    def screen(self) -> dict[str, int]:
        """candidates and false_positives: the course's filter asked about every digest in input order."""
        positives = len(self.false_positive_paragraphs)
        return {"candidates": self.repeated + positives, "false_positives": positives}

    def every_stat(self) -> dict[str, Any]:
        """All eight stats, in the order of the contract's STATS_KEYS."""
        every = {**self.counts, "bloom_bits": self.bloom_bits, **self.screen}
        return {key: every[key] for key in STATS_KEYS}
