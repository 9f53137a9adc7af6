"""Which implementation is under test, and how Hypothesis runs.

``--impl PATH`` names what the checks run against: an implementation root (a folder holding a
``corpus/`` package), a student's ``dedup.py`` or a folder holding one (put into a scratch root beside
the reference's other modules), or, when it is not given, the reference root ``impl/``. The plugin
``dedup_harness.core.impl_under_test`` declares the option, resolves it, loads the Hypothesis profile
and names both in the run's header. Every check reaches the implementation through the ``impl``
fixture, so another plugin (the grader's proxy to an isolated worker) can stand in for the
in-process module by putting its object in ``config.stash[IMPL_KEY]`` before the first check runs.
"""

from __future__ import annotations

import importlib
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import rich.style  # noqa: F401  (it draws from the global random as it is imported: before the guard below looks)

from dedup_harness.core.impl_under_test import IMPL_KEY, IMPL_OPTION, PLUGIN, start

DATA_ROOT = Path(__file__).resolve().parent.parent
ROOT_KEY = pytest.StashKey[Path]()
# The plugin that declares --impl (pytest loads it through its entry point unless autoloading is off).
pytest_plugins = (PLUGIN,)


def pytest_configure(config: pytest.Config) -> None:
    root = start(config).root
    config.stash[ROOT_KEY] = root
    # The root goes first on sys.path before any test module imports corpus.doc; the data root
    # makes the oracle importable.
    for path in (str(DATA_ROOT), str(root)):
        if path in sys.path:
            sys.path.remove(path)
        sys.path.insert(0, path)
    corpus = importlib.import_module("corpus")
    if Path(corpus.__file__ or "").resolve().parent.parent != root:
        raise pytest.UsageError(f"{IMPL_OPTION} {root}: `corpus` was already imported from {corpus.__file__}")


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
