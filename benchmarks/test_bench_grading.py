"""What isolation costs: starting a worker, one call through the proxy, a stage run, a whole graded run.

Run with ``tox -e bench`` (or ``pytest benchmarks/test_bench_grading.py``). Nothing here asserts a
time; the graded run asserts only that the reference passes all twelve checks through the worker.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.core.runner import run_suite
from dedup_harness.grade.client.proxy import SubmissionProxy
from dedup_harness.grade.plugin import plugin_args
from dedup_harness.grade.sandbox import Limits, Sandbox
from dedup_harness.grade.sandbox.tiers import Tier, why_not, worker_setup
from dedup_harness.grade.submission import prepare

DOCS = 1000


def doc_type() -> type:
    if str(IMPL_ROOT) not in sys.path:  # the trusted side's Doc is the reference's
        sys.path.insert(0, str(IMPL_ROOT))
    from corpus.doc import Doc

    return Doc


@pytest.fixture(scope="module")
def root() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as scratch:
        yield prepare(IMPL_ROOT / "corpus" / "dedup.py", Path(scratch)).root


@pytest.fixture(scope="module")
def proxy(root: Path) -> Iterator[SubmissionProxy]:
    sandbox = Sandbox(root, Limits())
    proxy = SubmissionProxy(sandbox, doc_type=doc_type)
    proxy.start()
    yield proxy
    proxy.shutdown()
    sandbox.close()


@pytest.mark.parametrize(
    "tier",
    [
        pytest.param(t.value, marks=pytest.mark.skipif(why_not(t) is not None, reason=str(why_not(t))))
        for t in (Tier.BUBBLEWRAP, Tier.UNSHARE, Tier.LANDLOCK)
    ],
)
def test_worker_start(benchmark: Any, root: Path, tier: str) -> None:
    """A sandbox, a worker behind it (confining itself, then importing the submission), and its end, per tier."""
    setup = worker_setup(tier)

    def start_and_stop() -> None:
        sandbox = Sandbox(root, Limits(), setup)
        proxy = SubmissionProxy(sandbox, doc_type=doc_type)
        proxy.start()
        proxy.shutdown()
        sandbox.close()

    benchmark.pedantic(start_and_stop, rounds=5, iterations=1)


def test_one_call_through_the_proxy(benchmark: Any, proxy: SubmissionProxy) -> None:
    assert benchmark(proxy.paragraph_hash, "The cat sat.").hex()[:8] == "84549cfa"


def test_a_stage_run_through_the_proxy(benchmark: Any, proxy: SubmissionProxy) -> None:
    docs = [doc_type()(str(i), f"paragraph {i}\n\nshared") for i in range(DOCS)]
    out = benchmark.pedantic(lambda: list(proxy.exact_dedup(iter(docs), 10)), rounds=3, iterations=1)
    assert len(out) == DOCS


def test_a_stage_run_in_process(benchmark: Any) -> None:
    doc_type()
    from corpus.dedup import exact_dedup

    docs = [doc_type()(str(i), f"paragraph {i}\n\nshared") for i in range(DOCS)]
    out = benchmark.pedantic(lambda: list(exact_dedup(iter(docs), 10)), rounds=3, iterations=1)
    assert len(out) == DOCS


def test_the_reference_graded_through_the_worker(benchmark: Any, root: Path) -> None:
    """The whole grading run of the reference's own dedup.py: every check passes."""
    args = plugin_args(root, None)
    result = benchmark.pedantic(
        lambda: run_suite(IMPL_ROOT, profile="grading", extra_args=args), rounds=1, iterations=1
    )
    assert result.outcomes == dict.fromkeys(CHECKS, Outcome.PASSED)
