"""Which known pitfall a submission's failures look like, from the kill matrix of ``verify``.

A mutant's kill set is the set of checks it fails. A submission "fails like" a mutant when that kill
set equals the checks the submission lost (an exact match) or is contained in them (the pitfall
explains part of what went wrong). Exact matches come first, then the mutants that explain the most
checks; ties in mutant id order. A mutant with an empty kill set explains nothing and is never named.
"""

from __future__ import annotations

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
    exact: bool  # the kill set equals the submission's lost checks

    def line(self) -> str:
        how = "fails like" if self.exact else "fails partly like"
        return f"{how} {self.mutant}: {self.pitfall}"


@dataclass(frozen=True)
class Diagnoser:
    """The kill sets of the mutants and their pitfalls in words."""

    kill_sets: Mapping[str, frozenset[str]]
    pitfalls: Mapping[str, str]

    def diagnose(self, lost: frozenset[str]) -> list[Diagnosis]:
        if not lost:
            return []
        found = [
            Diagnosis(mutant, self.pitfalls.get(mutant, ""), tuple(sorted(kills)), kills == lost)
            for mutant, kills in self.kill_sets.items()
            if kills and kills <= lost
        ]
        return sorted(found, key=lambda d: (not d.exact, -len(d.checks), d.mutant))


def no_diagnoser() -> Diagnoser:
    """Diagnoses nothing: for a run where the kill matrix is not available."""
    return Diagnoser({}, {})


def load_diagnoser(mutants_dir: Path = MUTANTS_DIR) -> Diagnoser:
    """The committed kill sets (``kill_matrix.json``) and the pitfalls of the catalogue."""
    pitfalls = {mutant.id: mutant.pitfall for mutant in load_catalogue(mutants_dir)}
    return Diagnoser(load_kill_sets(mutants_dir), pitfalls)
