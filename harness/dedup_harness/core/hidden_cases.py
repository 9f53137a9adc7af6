"""Cases a course holds back: with ``--hidden-seed N``, a run of the suite draws every seeded check's cases from N.

A *seeded* check draws its inputs (a seeded corpus, or Hypothesis) and takes the ``cases`` fixture
(tests/suite/conftest.py): ``PUBLIC`` unless this plugin was loaded with a seed, in the held-back run
(a worker of its own after the public run: ``grade.grader``), where only seeded checks run. Their
seeds are made from N, the check's name and the public seed (``Cases.seed``, ``seeded``): the same N
meets the same cases, no two checks share a draw, and N's ``SEED_BITS`` cannot be read back from
what a submission sees. The seed is the course's: neither the student kit nor ``check`` has one.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import seed as hypothesis_seed

PLUGIN = __name__
SEED_OPTION = "--hidden-seed"
SEED_DEST = "hidden_seed"
FIXTURE = "cases"  # what a seeded check takes


@dataclass(frozen=True)
class Cases:
    """Which cases a run of a seeded check draws: the public ones, or those held back with ``course_seed``."""

    check: str = ""
    course_seed: int | None = None

    @property
    def held_back(self) -> bool:
        return self.course_seed is not None

    def seed(self, public: int) -> int:
        """The seed to draw with where the public cases draw with ``public``."""
        if self.course_seed is None:
            return public
        words = f"{self.course_seed}/{self.check}/{public}".encode()
        return int.from_bytes(hashlib.sha256(words).digest()[:8], "big")


PUBLIC = Cases()


def plugin_args(course_seed: int | None) -> list[str]:
    """pytest's arguments that load this plugin with ``course_seed``; none without one."""
    return [] if course_seed is None else ["-p", PLUGIN, f"{SEED_OPTION}={course_seed}"]


SEED_BITS = 128  # a held-back seed's least size: no search over seeds finds it from a document it drew


def course_seed(config: pytest.Config) -> int | None:
    """The course's seed when this run is the held-back run, else None."""
    seed = config.getoption(SEED_DEST, None)
    return None if seed is None else int(seed)


def cases_for(config: pytest.Config, check: str) -> Cases:
    """The cases a run of a seeded check draws: the public ones, or (the held-back run) those drawn from the seed."""
    seed = course_seed(config)
    return PUBLIC if seed is None else Cases(check, seed)


def held_back(item: pytest.Item) -> bool:
    """Is this test run one of the cases held back (the held-back run's)?"""
    return course_seed(item.config) is not None


@contextlib.contextmanager
def seeded(test: Callable[..., Any], cases: Cases) -> Iterator[None]:
    """While the held-back run of a Hypothesis check runs, Hypothesis draws from that run's own seed (which
    overrides the profile's ``derandomize``); the public run draws as ever."""
    if not cases.held_back or not hasattr(test, "hypothesis"):
        yield
        return
    hypothesis_seed(cases.seed(0))(test)
    try:
        yield
    finally:
        hypothesis_seed(None)(test)  # None: back to the profile's derandomized draw


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("dedup-harness cases held back").addoption(
        SEED_OPTION, dest=SEED_DEST, type=int, metavar="N", help="run the seeded checks on cases drawn from seed N"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The held-back run runs the seeded checks alone: the others have nothing held back to draw."""
    if course_seed(config) is None:
        return
    seeded_checks = [item for item in items if FIXTURE in getattr(item, "fixturenames", ())]
    config.hook.pytest_deselected(items=[item for item in items if item not in seeded_checks])
    items[:] = seeded_checks
