"""Fixtures the checks share: the judge of the running check, the cases a seeded check draws, and the fixture
corpus.

Nothing here imports ``corpus`` at module level: this file loads before ``--impl`` has put the
implementation root on sys.path.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core import case_log, hidden_cases
from dedup_harness.core.checks import BY_NAME
from dedup_harness.core.impl_under_test import UNDER_TEST_KEY
from dedup_harness.core.judges import JUDGES, Subject, VerdictFailed
from dedup_harness.core.memory_gauge import MEMORY_GAUGE_KEY, TracedMemory
from dedup_harness.core.write_watch import WRITES_KEY, TempFolder

FIXTURE_DIR = Path(__file__).resolve().parent.parent.parent / "fixtures" / "data.03"

Judge = Callable[..., None]


@pytest.fixture
def judge(request: pytest.FixtureRequest, impl: Any, tmp_path: Path) -> Judge:
    """Judge the running check's implementation on an input, with the check's own judge (core/judges).

    Each input is recorded first (``case_log``), so the grader can shrink a failing one with the same
    judge. A failing verdict is raised as a ``VerdictFailed`` (an AssertionError) that carries it as
    data, for the outcome recorder to write beside the case. How memory is measured, and where a stage
    may write besides its spool_dir: tracemalloc and the temp folder in this process, unless a plugin
    put its own in the stash (the grader watches its isolated worker).
    """
    decide = JUDGES[BY_NAME[request.node.originalname].judged_as]
    stash = request.config.stash
    gauge, writes = stash.get(MEMORY_GAUGE_KEY, TracedMemory), stash.get(WRITES_KEY, TempFolder)
    subject = Subject(impl, tmp_path, gauge, own_filter=own_filter(request.config), writes=writes)

    def judge(**inputs: Any) -> None:
        case_log.record(**inputs)
        verdict = decide(subject, inputs)
        if verdict.failing:
            raise VerdictFailed(verdict)

    return judge


def own_filter(config: pytest.Config) -> bool:
    """Is the filter under test its author's own ``corpus/bloom.py`` (check on a student's own modules, grade
    --own-deps), not the course's? The --impl plugin knows which modules are whose."""
    return "bloom" in config.stash[UNDER_TEST_KEY].own


@pytest.fixture
def cases(request: pytest.FixtureRequest) -> Iterator[hidden_cases.Cases]:
    """The cases this run of a seeded check draws (``core/hidden_cases.py``): the public ones, or in the held-back
    run those drawn from the course's seed; its corpora's seeds (``Cases.seed``), and for a Hypothesis check the
    draw itself."""
    chosen = hidden_cases.cases_for(request.config, request.function.__name__)
    with hidden_cases.seeded(request.function, chosen):
        yield chosen


@pytest.fixture(scope="session")
def fixture_docs() -> list[Any]:
    from corpus.doc import Doc

    with open(FIXTURE_DIR / "docs.jsonl", encoding="utf-8") as lines:
        return [Doc(r["id"], r["text"], r["meta"]) for r in map(json.loads, lines)]


@pytest.fixture(scope="session")
def fixture_expected() -> dict[str, Any]:
    with open(FIXTURE_DIR / "expected.json", encoding="utf-8") as f:
        expected: dict[str, Any] = json.load(f)
    return expected
