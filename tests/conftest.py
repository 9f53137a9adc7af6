"""Which implementation is under test, and how Hypothesis runs.

``--impl ROOT`` names an implementation root (a folder holding a ``corpus/`` package; the reference
root ``impl/`` by default). Every check reaches the implementation through the ``impl`` fixture, so
another plugin (the grader's proxy to an isolated worker) can stand in for the in-process module by
putting its object in ``config.stash[IMPL_KEY]`` (``dedup_harness.seam``) before the first check runs.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings

from dedup_harness.seam import IMPL_KEY

DATA_ROOT = Path(__file__).resolve().parent.parent
REFERENCE_ROOT = DATA_ROOT / "impl"
ROOT_KEY = pytest.StashKey[Path]()
PROFILE_ENV = "DEDUP_HARNESS_PROFILE"

# Every Hypothesis profile, in one place. `grading` never depends on luck: the same submission
# always meets the same examples.
settings.register_profile("dev", deadline=None, max_examples=50)
settings.register_profile("ci", deadline=None, max_examples=50, derandomize=True, database=None, print_blob=True)
settings.register_profile(
    "grading",
    deadline=None,
    max_examples=50,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# `verify` runs the suite against fifteen targets and only asks whether a check fails: no shrink
# phase (a failing mutant would spend seconds shrinking an example nobody reads there).
settings.register_profile(
    "verify",
    deadline=None,
    max_examples=50,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)
# `mutation`: mutmut runs the suite once per mutant; a mutant's verdict must not depend on luck or on
# how slow the trampolines make a test, and nothing may be written to an example database.
settings.register_profile(
    "mutation", deadline=None, max_examples=50, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get(PROFILE_ENV, "dev"))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dedup-harness")
    group.addoption(
        "--impl",
        dest="impl_root",
        default=str(REFERENCE_ROOT),
        metavar="ROOT",
        help="implementation root under test: a folder holding a corpus/ package (default: the reference)",
    )


def pytest_configure(config: pytest.Config) -> None:
    root = Path(config.getoption("impl_root")).resolve()
    if not (root / "corpus" / "__init__.py").is_file():
        raise pytest.UsageError(f"--impl {root}: no corpus/ package there")
    config.stash[ROOT_KEY] = root
    # The root goes first on sys.path before any test module imports corpus.doc; the data root
    # makes the oracle importable.
    for path in (str(DATA_ROOT), str(root)):
        if path in sys.path:
            sys.path.remove(path)
        sys.path.insert(0, path)
    corpus = importlib.import_module("corpus")
    if Path(corpus.__file__ or "").resolve().parent.parent != root:
        raise pytest.UsageError(f"--impl {root}: `corpus` was already imported from {corpus.__file__}")


def pytest_report_header(config: pytest.Config) -> list[str]:
    profile = settings.get_current_profile_name()
    return [f"dedup-harness: implementation root {config.stash[ROOT_KEY]}, hypothesis profile {profile}"]


def load_in_process(root: Path) -> ModuleType:
    """The root's ``corpus.dedup`` module, imported into this process."""
    module = importlib.import_module("corpus.dedup")
    if Path(module.__file__ or "").resolve().parent.parent != root:
        raise pytest.UsageError(f"corpus.dedup came from {module.__file__}, not from {root}")
    return module


@pytest.fixture(scope="session")
def impl(pytestconfig: pytest.Config) -> Any:
    """The implementation under test: STATS_KEYS, paragraphs, paragraph_hash, bloom_rate, exact_dedup."""
    if IMPL_KEY not in pytestconfig.stash:
        pytestconfig.stash[IMPL_KEY] = load_in_process(pytestconfig.stash[ROOT_KEY])
    return pytestconfig.stash[IMPL_KEY]


@pytest.fixture(autouse=True)
def _global_random_is_left_alone() -> Iterator[None]:
    """Generators own their random.Random; a test that moves the global RNG fails."""
    before = random.getstate()
    yield
    assert random.getstate() == before, "this test changed the global random state"
