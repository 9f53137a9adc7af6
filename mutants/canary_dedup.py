"""The canary: a ``corpus.dedup`` that is wrong in every way the suite looks at.

``verify`` copies this file over ``corpus/dedup.py`` in a scratch copy of the reference and runs the
suite against it before anything else. Every check must fail on it by an assertion; a check that
passes here cannot fail anywhere, and a kill matrix built with it proves nothing. The harness never
imports this module: it is data, checked by mypy like the rest.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from corpus.doc import Doc

STATS_KEYS: tuple[str, ...] = ("docs_in",)


def paragraphs(text: str) -> list[str]:
    return [text + " (canary)"]


def paragraph_hash(p: str) -> bytes:
    return bytes(32)


def bloom_rate(bloom_bytes_per_item: float) -> float:
    return 0.5


def exact_dedup(
    docs: Iterable[Doc],
    bloom_bytes_per_item: float = 10,
    *,
    spool_dir: str | Path | None = None,
    stats: dict[str, Any] | None = None,
) -> Iterator[Doc]:
    if spool_dir is not None:  # a spool left behind, even when the stage is never started
        tempfile.mkdtemp(prefix="canary-", dir=spool_dir)
    if stats is not None:  # a billion false positives among one paragraph; no other stat at all
        stats.update(paragraphs=1, false_positives=10**9)
    return iter([Doc("canary", "always wrong")])
