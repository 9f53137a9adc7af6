"""Which known pitfall a submission's failures look like, from the kill matrix of ``verify``, and only as far
as the evidence goes.

A mutant's kill set is the set of checks it fails by an assertion. The evidence of a submission is
the set of checks it failed by an assertion (a crash or a hang says nothing about a pitfall). A
submission "fails like" a mutant when that mutant's kill set equals its evidence; when none does,
it "fails partly like" two mutants whose kill sets together are exactly its evidence, if exactly one
such pair exists. Anything else gets no pitfall: a guess beside the truth teaches the wrong lesson.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.core.catalogue import load_catalogue
from dedup_harness.core.kill_matrix import load_kill_sets
from dedup_harness.core.paths import MUTANTS_DIR


@dataclass(frozen=True)
class Diagnosis:
    mutant: str
    pitfall: str
    checks: tuple[str, ...]  # the mutant's kill set, sorted
    exact: bool  # the kill set equals the evidence; else it is one of two that together do

    def line(self) -> str:
        how = "fails like" if self.exact else "fails partly like"
        return f"{how} {self.mutant}: {self.pitfall}"


@dataclass(frozen=True)
class Diagnoser:
    """The kill sets of the mutants and their pitfalls in words."""

    kill_sets: Mapping[str, frozenset[str]]
    pitfalls: Mapping[str, str]

    def diagnose(self, failed: frozenset[str]) -> list[Diagnosis]:
        """The pitfalls ``failed`` (the checks failed by an assertion) supports, exact matches first."""
        if not failed:
            return []
        sets = {mutant: kills for mutant, kills in sorted(self.kill_sets.items()) if kills}
        exact = [self._diagnosis(mutant, True) for mutant, kills in sets.items() if kills == failed]
        if exact:
            return exact
        pairs = [
            (a, b)
            for (a, ka), (b, kb) in itertools.combinations(sets.items(), 2)
            if ka | kb == failed and not ka <= kb and not kb <= ka
        ]
        if len(pairs) != 1:
            return []  # none, or several ways to explain it: no pitfall the evidence singles out
        return [self._diagnosis(mutant, False) for mutant in pairs[0]]

    def _diagnosis(self, mutant: str, exact: bool) -> Diagnosis:
        return Diagnosis(mutant, self.pitfalls.get(mutant, ""), tuple(sorted(self.kill_sets[mutant])), exact)


def no_diagnoser() -> Diagnoser:
    """Diagnoses nothing: for a run where the kill matrix is not available."""
    return Diagnoser({}, {})


def load_diagnoser(mutants_dir: Path = MUTANTS_DIR) -> Diagnoser:
    """The committed kill sets (``kill_matrix.json``) and the pitfalls of the catalogue."""
    pitfalls = {mutant.id: mutant.pitfall for mutant in load_catalogue(mutants_dir)}
    return Diagnoser(load_kill_sets(mutants_dir), pitfalls)
