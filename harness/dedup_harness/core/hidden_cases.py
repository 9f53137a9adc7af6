"""Cases a course holds back: with ``--hidden-seed N``, every seeded check runs its public cases and then more,
drawn from N.

A *seeded* check is one whose inputs are drawn: from a seeded corpus generator (``core/corpora``)
or by Hypothesis. It takes the ``cases`` fixture (tests/suite/conftest.py), which is ``PUBLIC``
unless the grader loaded this plugin with a seed: then each such check runs twice, ``[public]`` and
``[held-back]``. The held-back run draws its corpora with seeds made from N, the check's name and
the public seed (``Cases.seed``), and runs Hypothesis from a seed made the same way (``seeded``), so
the same submission graded with the same N meets the same cases, and no two checks share a draw.

The seed is the course's: the student kit holds none and ``check`` loads no such plugin, so a
student sees the public cases only; ``grade`` reports which failures were held back
(``held_back``), and Gradescope shows such a case after the due date alone.
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

    def __str__(self) -> str:  # the case's id in pytest's node id: test_x[held-back]
        return "held-back" if self.held_back else "public"


PUBLIC = Cases()


def plugin_args(course_seed: int | None) -> list[str]:
    """pytest's arguments that load this plugin with ``course_seed``; none without one."""
    return [] if course_seed is None else ["-p", PLUGIN, f"{SEED_OPTION}={course_seed}"]


def variants(config: pytest.Config, check: str) -> list[Cases]:
    """The runs of a seeded check: the public one, then the one held back when a course seed was given."""
    course_seed = config.getoption(SEED_DEST, None)
    return [PUBLIC] if course_seed is None else [PUBLIC, Cases(check, int(course_seed))]


def held_back(item: pytest.Item) -> bool:
    """Is this test run one of the cases held back?"""
    spec = getattr(item, "callspec", None)
    cases = spec.params.get(FIXTURE) if spec is not None else None
    return isinstance(cases, Cases) and cases.held_back


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
        SEED_OPTION,
        dest=SEED_DEST,
        type=int,
        metavar="N",
        help="also run every seeded check on cases drawn from the course's seed N",
    )
