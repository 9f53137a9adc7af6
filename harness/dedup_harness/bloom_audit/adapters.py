"""One small interface over any Bloom filter: insert, contains, and m, k, indexes where the filter exposes them.

Items are byte strings. Batches exist only for speed: the defaults run the per-item calls in order.
Third-party packages are imported by name at run time, so this module imports without them.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from dedup_harness.core import reference


class BloomAdapter:
    """A filter under audit. Subclasses set ``m``, ``k`` and ``has_indexes`` to what the filter exposes, and
    define insert or insert_many, and contains or contains_many (each of a pair defaults to the other)."""

    m: int | None = None  # allocated bits, None when the filter hides them
    k: int | None = None  # hashes per item, None when the filter hides them
    has_indexes = False  # True when ``bit_indexes`` reports the filter's real index function

    def insert(self, item: bytes) -> None:
        self.insert_many([item])

    def contains(self, item: bytes) -> bool:
        return self.contains_many([item])[0]

    def bit_indexes(self, item: bytes) -> list[int]:
        """The bits the filter would set for ``item`` (only when ``has_indexes``)."""
        raise NotImplementedError(f"{type(self).__name__} exposes no index function")

    def set_bits(self) -> set[int] | None:
        """The bits now set, where the filter lets them be read; None otherwise."""
        return None

    def storage_bits(self) -> int | None:
        """The bits of memory its bit array occupies (``m`` rounded up to its words), where readable."""
        return None

    def shows_bits(self) -> bool:
        """Whether ``set_bits`` can be read at all (it may still find none that grow as items go in)."""
        return self.set_bits() is not None

    def bits_to_reach(self) -> int | None:
        """The bits reachability is measured against: m, where the filter shows it."""
        return self.m

    def read_from(self) -> str:
        """What reachability was measured from, said after its reason ("" for the filters the audit knows)."""
        return ""

    def unread(self) -> str:
        """Why reachability could not be measured, when neither indexes nor bits can be read."""
        return "the filter exposes neither its indexes nor its bits"

    def insert_many(self, items: Sequence[bytes]) -> None:
        for item in items:
            self.insert(item)

    def contains_many(self, items: Sequence[bytes]) -> list[bool]:
        return [self.contains(item) for item in items]

    def indexes_many(self, items: Sequence[bytes]) -> list[list[int]]:
        return [self.bit_indexes(item) for item in items]


class CaseRefused(Exception):
    """The library's constructor refuses a case (its documented error): the case is not applicable to it."""


class NamedCallsAdapter(BloomAdapter):
    """A filter whose insert, contains and batch insert (where it has one) are its own methods, looked up once."""

    filter: Any

    def use(self, filter: Any, insert: str, contains: str, insert_many: str | None = None) -> None:
        self.filter = filter
        self._insert, self._contains = getattr(filter, insert), getattr(filter, contains)
        self._insert_many = getattr(filter, insert_many) if insert_many else None

    def insert(self, item: bytes) -> None:
        self._insert(item)

    def contains(self, item: bytes) -> bool:
        return bool(self._contains(item))

    def insert_many(self, items: Sequence[bytes]) -> None:
        if self._insert_many is None:
            super().insert_many(items)
        else:
            self._insert_many(list(items))


class ReferenceAdapter(NamedCallsAdapter):
    """The reference ``BloomFilter`` (or any class with its API, such as a deliberately broken subclass)."""

    has_indexes = True

    def __init__(self, capacity: int, error_rate: float, *, cls: Any = None) -> None:
        cls = cls if cls is not None else reference.load("corpus.bloom").BloomFilter
        self.use(cls(capacity, error_rate), "insert", "contains")
        self.m = int(self.filter.m)
        self.k = int(self.filter.k)

    def bit_indexes(self, item: bytes) -> list[int]:
        return [int(b) for b in self.filter.bit_indexes(item)]

    def storage_bits(self) -> int | None:
        bits = getattr(self.filter, "bits", None)
        return 8 * len(bits) if isinstance(bits, bytes | bytearray) else None


class DatatroveAdapter(BloomAdapter):
    """datatrove's ``SingleBloomFilter``, driven through its own ``get_indexes``, ``update_bf`` and ``query``.

    An item becomes one shingle the way datatrove hashes an n-gram: its ``hash_fc`` (32-bit xxhash by
    default) over the item read as Latin-1 text, a one-to-one reading of the bytes.
    ``fixed_reduction`` swaps only ``get_indexes`` (line 147) for a control run with the reduction corrected.
    """

    has_indexes = True

    def __init__(self, m_bytes: int, capacity: int, k: int | None = None, *, fixed_reduction: bool = False) -> None:
        bloom = importlib.import_module("datatrove.pipeline.dedup.bloom_filter")
        self.module = bloom
        config = bloom.BloomFilterConfig(m_bytes=m_bytes, k=k, expected_elements=capacity)
        cls = fixed_reduction_class(bloom) if fixed_reduction else bloom.SingleBloomFilter
        self.filter = cls(output_folder="memory://dedup-harness-audit", config=config, language=whitespace_tokenizer())
        self.m = len(self.filter.bit_vector) * 8
        self.k = int(config.k)
        self.np = importlib.import_module("numpy")

    def _shingles(self, items: Sequence[bytes]) -> Any:
        hash_fc = self.filter.hash_fc
        values = [hash_fc(item.decode("latin-1")) for item in items]
        return self.np.array(values, dtype=self.np.uint64).reshape((-1, 1))

    def indexes_many(self, items: Sequence[bytes]) -> list[list[int]]:
        if not items:
            return []
        rows: list[list[int]] = self.filter.get_indexes(self._shingles(items))
        return rows

    def bit_indexes(self, item: bytes) -> list[int]:
        return self.indexes_many([item])[0]

    def insert_many(self, items: Sequence[bytes]) -> None:
        flat = [index for row in self.indexes_many(items) for index in row]
        self.filter.update_bf(flat)

    def contains_many(self, items: Sequence[bytes]) -> list[bool]:
        return [bool(self.filter.query(row)) for row in self.indexes_many(items)]

    def storage_bits(self) -> int:
        return 8 * len(self.filter.bit_vector)


def fixed_reduction_class(bloom: Any) -> Any:
    """datatrove's ``SingleBloomFilter`` with line 147's ``& m_bytes`` replaced by ``% m``, nothing else."""

    class FixedReductionBloomFilter(bloom.SingleBloomFilter):  # type: ignore[misc]
        def get_indexes(self, shingles: Any) -> list[list[int]]:
            a, b = self.parameters
            result: list[list[int]] = ((shingles * a + b) % bloom._mersenne_prime % self.config.m).tolist()
            return result

    return FixedReductionBloomFilter


def whitespace_tokenizer() -> Any:
    """A datatrove ``WordTokenizer`` that splits on whitespace.

    datatrove's English tokenizer needs NLTK data from the network; ``load_word_tokenizer`` accepts any
    ``WordTokenizer`` instance, and the Bloom path only calls ``word_tokenize``.
    """
    base = importlib.import_module("datatrove.utils.word_tokenizers").WordTokenizer

    class WhitespaceTokenizer(base):  # type: ignore[misc,valid-type]
        def word_tokenize(self, text: str) -> list[str]:
            return text.split()

        def sent_tokenize(self, text: str) -> list[str]:
            return [text]

        def span_tokenize(self, text: str) -> list[tuple[int, int]]:
            return [(0, len(text))]

    return WhitespaceTokenizer("en")
