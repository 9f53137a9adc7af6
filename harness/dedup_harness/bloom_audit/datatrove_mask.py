"""The datatrove bloommask report (docs/audit-bloom.md), reproduced against the installed package.

Three claims: an index ``hash & m_bytes`` reaches exactly ``2 ** popcount(m_bytes)`` bits; the rate
datatrove logs (over ``8 m_bytes`` bits) is not the rate it delivers (over the reachable bits); and
unique documents are dropped through its own per-document path. The arithmetic needs no datatrove;
the measurements call its ``SingleBloomFilter`` as shipped and with only line 147 corrected.
"""

from __future__ import annotations

import importlib
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from unittest import mock

from dedup_harness.bloom_audit.adapters import DatatroveAdapter, fixed_reduction_class, whitespace_tokenizer
from dedup_harness.bloom_audit.filter_checks import Finding, unique_items
from dedup_harness.bloom_audit.formulas import textbook_rate

REPORT_SIZES = (("2**20", 2**20), ("2**16", 2**16), ("1000", 1000), ("2**10 - 1", 2**10 - 1))
GAP_M_BYTES, GAP_K, GAP_ITEMS = 2**20, 7, 100
DOCUMENTS, WORDS_PER_DOCUMENT = 50, 40
LAW_DRAWS = 20_000  # indexes drawn per size to measure the reachable set


def popcount(x: int) -> int:
    return bin(x).count("1")


def reachable_by_law(m_bytes: int) -> int:
    """The bits ``hash & m_bytes`` can reach: every submask of m_bytes, and nothing else."""
    return 1 << popcount(m_bytes)


def logged_rate(m_bytes: int, n: int, k: int) -> float:
    """What datatrove logs: the Bloom rate over ``8 m_bytes`` bits."""
    return textbook_rate(8 * m_bytes, k, n)


def delivered_rate(m_bytes: int, n: int, k: int) -> float:
    """What the masked filter delivers: the same rate over the ``2 ** popcount(m_bytes)`` reachable bits."""
    return textbook_rate(reachable_by_law(m_bytes), k, n)


@dataclass(frozen=True)
class LawRow:
    label: str
    m_bytes: int
    popcount: int
    reachable: int
    allocated: int
    measured: int | None  # distinct indexes datatrove's get_indexes produced, when it is installed
    all_submasks: bool | None  # every index measured was a submask of m_bytes

    @property
    def fraction(self) -> float:
        return self.reachable / self.allocated


@dataclass(frozen=True)
class RateGap:
    m_bytes: int
    k: int
    n: int
    logged_formula: float
    logged_by_datatrove: float | None  # parsed from its own log line
    delivered_formula: float
    delivered_measured: float
    queries: int


@dataclass(frozen=True)
class DocumentDrops:
    documents: int
    dropped_shipped: int
    dropped_fixed: int
    dropped_count_in_stats: int  # what datatrove's own stats say was dropped, shipped code


@dataclass
class BloommaskReport:
    law: list[LawRow]
    gap: RateGap
    drops: DocumentDrops


def law_rows(module: Any = None) -> list[LawRow]:
    rows = []
    for label, m_bytes in REPORT_SIZES:
        measured = all_submasks = None
        if module is not None:
            seen = set(_indexes(m_bytes, LAW_DRAWS))
            measured, all_submasks = len(seen), all(i & ~m_bytes == 0 for i in seen)
        law = (label, m_bytes, popcount(m_bytes), reachable_by_law(m_bytes), 8 * m_bytes)
        rows.append(LawRow(*law, measured, all_submasks))
    return rows


def _indexes(m_bytes: int, draws: int) -> Iterable[int]:
    """Indexes from datatrove's own get_indexes for ``draws // k`` random items."""
    adapter = DatatroveAdapter(m_bytes, capacity=draws, k=GAP_K)
    items = unique_items(f"law:{m_bytes}", draws // GAP_K)
    return (i for row in adapter.indexes_many(items) for i in row)


def logged_by_datatrove(module: Any, m_bytes: int, n: int, k: int) -> float | None:
    """The rate datatrove logs as it builds the filter, read from its logger's calls."""
    config = module.BloomFilterConfig(m_bytes=m_bytes, k=k, expected_elements=n)
    with mock.patch.object(module, "logger") as logger:
        module.SingleBloomFilter("memory://dedup-harness-bloommask", config, language=whitespace_tokenizer())
    lines = [str(call.args[0]) for call in logger.method_calls if call.args]
    found = [re.search(r"False probability = ([0-9.e+-]+)", line) for line in lines]
    return next((float(match.group(1)) for match in found if match), None)


def rate_gap(module: Any, queries: int = 20_000) -> RateGap:
    m, k, n = GAP_M_BYTES, GAP_K, GAP_ITEMS
    logged = logged_by_datatrove(module, m, n, k)
    adapter = DatatroveAdapter(m, n, k)
    inserted = unique_items("gap:insert", n)
    adapter.insert_many(inserted)
    fresh = unique_items("gap:query", queries, avoid=inserted)
    measured = sum(adapter.contains_many(fresh)) / queries
    return RateGap(m, k, n, logged_rate(m, n, k), logged, delivered_rate(m, n, k), measured, queries)


def unique_documents(count: int = DOCUMENTS, seed: int = 0) -> list[str]:
    """Documents of random letter words: every 13-word shingle is new, so none is a duplicate."""
    rng = random.Random(f"bloommask:{seed}")
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [
        " ".join("".join(rng.choice(letters) for _ in range(7)) for _ in range(WORDS_PER_DOCUMENT))
        for _ in range(count)
    ]


def document_drops(module: Any, m_bytes: int = GAP_M_BYTES, k: int = GAP_K) -> DocumentDrops:
    """Run datatrove's own ``run`` (get_shingles, get_indexes, query, update_bf, step) on unique documents."""
    texts = unique_documents()
    shipped = _run_documents(module.SingleBloomFilter, module, texts, m_bytes, k)
    fixed = _run_documents(fixed_reduction_class(module), module, texts, m_bytes, k)
    return DocumentDrops(len(texts), shipped[0], fixed[0], shipped[1])


def _run_documents(cls: Any, module: Any, texts: list[str], m_bytes: int, k: int) -> tuple[int, int]:
    document = importlib.import_module("datatrove.data").Document
    config = module.BloomFilterConfig(m_bytes=m_bytes, k=k, expected_elements=len(texts) * WORDS_PER_DOCUMENT)
    bloom = cls("memory://dedup-harness-bloommask", config, language=whitespace_tokenizer())
    docs = [document(text=text, id=str(i)) for i, text in enumerate(texts)]
    kept = sum(1 for _ in bloom.run(docs))
    return len(texts) - kept, int(bloom.stats["dropped"].total)


def datatrove_notes(module: Any) -> list[Finding]:
    """Faults outside the sizing checks, each measured on the installed module."""
    drops, notes = document_drops(module), []
    if drops.dropped_count_in_stats != drops.dropped_shipped:
        example = (
            f"run() dropped {drops.dropped_shipped} of {drops.documents} documents; its stats say"
            f" {drops.dropped_count_in_stats} (step() and run() both call stat_update('dropped'))"
        )
        notes.append(Finding("dropped documents counted twice", 0, example))
    if module.MAX_HASH != (1 << 32) - 1:
        example = (
            f"MAX_HASH = {module.MAX_HASH} (`1 << 32 - 1` parses as `1 << 31`): the guard m < MAX_HASH"
            f" refuses any m_bytes above {(module.MAX_HASH - 1) // 8}, half the filter a 32-bit bound would allow"
        )
        notes.append(Finding("MAX_HASH is 2**31, not 2**32 - 1", 0, example))
    return notes


def build_report(module: Any) -> BloommaskReport:
    """The report, measured against ``module`` (datatrove's bloom_filter)."""
    return BloommaskReport(law_rows(module), rate_gap(module), document_drops(module))
