"""Each fault's minimal reproduction: a few lines of Python that need only the library (reproductions.toml).

The reproductions are data, kept beside the code that finds the faults, so the audit can print the
one for every fault it reports and a test can run each against the installed release: a
reproduction asserts its fault, so it exits 0 while the fault is there and fails once it is fixed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CATALOGUE = Path(__file__).with_name("reproductions.toml")


@dataclass(frozen=True)
class Reproduction:
    target: str  # the audit's name for the library
    cause: str  # the fault's name, as the audit reports it
    release: str  # the release it was checked against
    title: str
    code: str


@cache
def catalogue() -> tuple[Reproduction, ...]:
    with CATALOGUE.open("rb") as handle:
        entries = tomllib.load(handle)["reproduction"]
    return tuple(Reproduction(**entry) for entry in entries)


def for_causes(target: str, causes: Iterable[str]) -> list[Reproduction]:
    """The reproductions of ``target``'s faults among ``causes``, in the catalogue's order."""
    wanted = set(causes)
    return [r for r in catalogue() if r.target == target and r.cause in wanted]
