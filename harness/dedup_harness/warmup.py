"""What verify's fork server does once for all its children: the imports, and the suite's big corpora.

Every child is forked from a process that has already imported pytest, Hypothesis and the harness,
and that has already generated the large seeded corpora the suite asks for. The generators are
deterministic, so memoizing them changes no answer: each call still gets its own copy of the
records. Only the fork server imports this module; an ordinary pytest run never does.
"""

from __future__ import annotations

import concurrent.futures.thread  # noqa: F401  (the reference's Bloom batch path starts a helper thread)
import contextlib
import functools
import importlib
from collections.abc import Callable
from typing import Any

import _pytest.config
import hypothesis  # noqa: F401
import pytest  # noqa: F401

from dedup_harness import corpora, outcomes, strategies  # noqa: F401

with contextlib.suppress(ImportError):  # the reference's Bloom batch path
    import numpy.typing  # noqa: F401

# pytest imports most of its own plugins only as a session starts, so each child would import them again.
for _name in getattr(_pytest.config, "default_plugins", ()):
    with contextlib.suppress(ImportError):
        importlib.import_module(f"_pytest.{_name}")

Generator = Callable[..., list[corpora.Record]]


def memoized(generate: Generator) -> Generator:
    """``generate`` computed once per argument list; every caller gets fresh record dicts."""
    cache: dict[tuple[Any, ...], list[corpora.Record]] = {}

    @functools.wraps(generate)
    def cached(*args: Any, **kwargs: Any) -> list[corpora.Record]:
        key = (args, tuple(sorted(kwargs.items())))
        if key not in cache:
            cache[key] = generate(*args, **kwargs)
        return [{**record, "meta": dict(record["meta"])} for record in cache[key]]

    return cached


def warm() -> None:
    """Memoize the generators and make the corpora the suite's slowest checks use (their exact arguments)."""
    corpora.unique_corpus = memoized(corpora.unique_corpus)
    corpora.mixed_corpus = memoized(corpora.mixed_corpus)
    corpora.unique_corpus(seed=6, paragraphs=20_000, per_doc=25)  # tests/suite/test_bloom_sizing.py
    corpora.mixed_corpus(seed=25, docs=200, repeat_rate=0.2)  # tests/suite/test_against_the_oracle.py


warm()
