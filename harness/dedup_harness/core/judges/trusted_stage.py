"""A correct stage made of trusted parts: the oracle's output and the stats ``Expected`` computes.

The shrinker must not blame a submission for luck: on an input where the false-positive budget's
promise fails for the course's own filter too, a failure says nothing of the submission. It asks the
budget judge about this stage, whose false positives are the course's filter's on the oracle's
paragraphs in input order (``Expected.screen``), as the reference's would be. It needs neither the
reference's ``dedup.py`` (the student kit holds none) nor a spool: it answers the judges that read an
output and its stats, not those of the spool, the memory or a bad B.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from dedup_harness.core import bloom_sizing, reference
from dedup_harness.core.contract import STATS_KEYS
from dedup_harness.core.judges.expected import Expected


class TrustedStage:
    """The module's surface, answered from the oracle, the sizing rules and the course's filter."""

    STATS_KEYS = STATS_KEYS

    @staticmethod
    def paragraphs(text: str) -> list[str]:
        split: list[str] = reference.oracle().paragraphs(text)
        return split

    @staticmethod
    def paragraph_hash(p: str) -> bytes:
        return hashlib.sha256(p.encode("utf-8")).digest()

    @staticmethod
    def bloom_rate(bloom_bytes_per_item: float) -> float:
        return bloom_sizing.rate(bloom_bytes_per_item)

    @staticmethod
    def exact_dedup(
        docs: Iterable[Any],
        bloom_bytes_per_item: float = 10,
        *,
        spool_dir: str | Path | None = None,
        stats: dict[str, Any] | None = None,
    ) -> Iterator[Any]:
        expected = Expected(list(docs), bloom_bytes_per_item)
        yield from expected.output
        if stats is not None:
            stats.update(expected.every_stat())
