"""The external sort's numpy pass 2 gives exactly the answers of the reference's screen() loop and the same bits."""

from __future__ import annotations

import importlib.util
import itertools
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from dedup_harness.core import reference
from dedup_harness.core.corpora import mixed_corpus
from dedup_harness.core.paths import IMPL_EXTERNAL_ROOT

pytest.importorskip("numpy", reason="the batch path exists only where numpy is installed")
bloom = reference.load("corpus.bloom")
hashing = reference.load("corpus.hashing")
dedup = reference.load("corpus.dedup")


def _external_batch() -> ModuleType:
    """impl_external's bloom_numpy, beside the reference's corpus.bloom and corpus.hashing it builds on."""
    spec = importlib.util.spec_from_file_location(
        "external_bloom_numpy", IMPL_EXTERNAL_ROOT / "corpus" / "bloom_numpy.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


batch = _external_batch()

RATES = st.sampled_from([0.95, 0.9, 0.5, 0.1, 0.01, 1e-6, 1e-17])
ITEMS = st.one_of(st.binary(min_size=32, max_size=32), st.binary(max_size=6))


def one_by_one(f: Any, items: list[bytes]) -> list[bool]:
    """The rule of pass 2, item by item: "present" is the answer; "new" inserts the item."""
    answers = []
    for item in items:
        answers.append(f.contains(item))
        if not answers[-1]:
            f.insert(item)
    return answers


def screen(capacity: int, rate: float, before: list[bytes], batches: list[list[bytes]], *, fast: bool):
    """Fill a fresh filter per item with ``before``, then screen each batch on one path."""
    f = bloom.BloomFilter(capacity, rate)
    for item in before:
        f.insert(item)
    if fast:
        answers = [batch.screen_batch(f.bits, f.m, f.k, b) for b in batches]
    else:
        answers = [one_by_one(f, b) for b in batches]
    assert all(type(a) is bool for answer in answers for a in answer), "screen_batch answers True or False"
    return answers, bytes(f.bits)


PICKS = st.lists(st.integers(0, 24), max_size=30)


@given(
    capacity=st.integers(0, 40),
    rate=RATES,
    pool=st.lists(ITEMS, min_size=1, max_size=25),
    before=st.lists(st.integers(0, 24), max_size=5),
    batches=st.lists(PICKS, max_size=4),
)
@example(capacity=1, rate=0.9, pool=[b"a", b"b"], before=[], batches=[[0, 1, 0, 1]])  # m = 1: one shared bit
@example(capacity=1, rate=1e-6, pool=[b"x" * 32, b"y"], before=[1], batches=[[0, 0, 1]])  # k = 20 bits of 29 repeat
def test_the_batch_path_answers_and_sets_bits_exactly_like_the_loop(capacity, rate, pool, before, batches):
    first = [pool[i % len(pool)] for i in before]
    items = [[pool[i % len(pool)] for i in b] for b in batches]
    assert screen(capacity, rate, first, items, fast=True) == screen(capacity, rate, first, items, fast=False)


@given(pool=st.lists(st.binary(min_size=32, max_size=32), min_size=1, max_size=10), picks=PICKS)
def test_chunk_boundaries_inside_one_batch_change_nothing(pool, picks):
    items = [pool[i % len(pool)] for i in picks]
    saved, batch.CHUNK = batch.CHUNK, 3  # a batch then spans several numpy calls
    try:
        fast = screen(3, 0.2, [], [items], fast=True)
    finally:
        batch.CHUNK = saved
    assert fast == screen(3, 0.2, [], [items], fast=False)


def test_an_item_inserted_early_in_a_batch_makes_its_repeat_read_present():
    for fast in (True, False):
        (answers,), _ = screen(10, 0.01, [], [[b"cat", b"dog", b"cat", b"dog", b"cat"]], fast=fast)
        assert answers == [False, False, True, True, True]


@given(st.lists(st.binary(max_size=40), max_size=20))
def test_vectorised_fnv1a_matches_the_scalar_one(items):
    assert batch.fnv1a_64_many(items).tolist() == [hashing.fnv1a_64(x) for x in items]


@given(st.lists(st.binary(min_size=32, max_size=32), max_size=10), st.integers(1, 2**40), st.integers(1, 60))
def test_vectorised_bit_indexes_match_the_per_item_ones(items, m, k):
    f = bloom.BloomFilter(1, 0.5)
    f.m, f.k = m, k
    assert batch.bit_indexes_many(items, m, k).tolist() == [f.bit_indexes(x) for x in items]


def _external_python(code: str, **env: str) -> str:
    run = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env, "PYTHONPATH": str(IMPL_EXTERNAL_ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout.strip()


def test_without_numpy_the_external_stage_imports_and_screens_item_by_item() -> None:
    code = (
        "import sys; sys.modules['numpy'] = None\n"  # makes `import numpy` raise ImportError
        "import corpus.dedup as d; from corpus.doc import Doc\n"
        "docs = [Doc('a', 'x\\n\\ny'), Doc('b', 'y'), Doc('c', 'x\\n\\nz')]\n"
        "print(d._numpy_screen_batch is None, [x.id for x in d.exact_dedup(docs)])"
    )
    assert _external_python(code) == "True ['a', 'c']"


@pytest.mark.parametrize("repeat_rate", [0.0, 0.3])
@pytest.mark.parametrize("bloom_bytes_per_item", [0.1, 1, 10])
def test_pass_two_finds_the_reference_loops_candidates_and_bits(
    tmp_path: Path, repeat_rate: float, bloom_bytes_per_item: float
) -> None:
    """The reference's screen() on one spool, and the batch path over the same digests: the same candidates and bits."""
    docs = [dedup.Doc(r["id"], r["text"], r["meta"]) for r in mixed_corpus(seed=3, docs=300, repeat_rate=repeat_rate)]
    spool = dedup.Spool(tmp_path)
    _, n = dedup.spool_documents(docs, spool)
    rate = dedup.bloom_rate(bloom_bytes_per_item)
    fast_filter, loop_filter = bloom.BloomFilter(n, rate), bloom.BloomFilter(n, rate)
    digests = [d for records in spool.record_batches() for d, _, _ in records]
    fast = set(itertools.compress(digests, batch.screen_batch(fast_filter.bits, fast_filter.m, fast_filter.k, digests)))
    loop = dedup.screen(spool, loop_filter)
    assert fast == loop
    assert fast_filter.bits == loop_filter.bits
    if repeat_rate:
        assert loop, "a corpus with repeats has candidates"
