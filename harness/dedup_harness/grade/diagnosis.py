"""Which known pitfall a submission shows: named only where its behaviour on its own failing cases proves it.

A mutant's kill set is the checks it fails by an assertion; the submission's evidence is those it
failed so (a crash or a hang says nothing about a pitfall). Kill sets only propose: with fifteen
mutants and fourteen checks, different mistakes often fail the same checks. The proof is behaviour
(``minimize/behaviour.py``): on each minimal failing input the mutant fails too, answers as the
submission did in what the check found wrong, and otherwise than the reference.

- A mutant whose kill set is the evidence, and that matches on every minimal case: "fails like sNN".
- The one pair of mutants whose kill sets together are the evidence, each matching on the cases of
  the checks only it fails: "fails partly like sNN" for both.
- No kill set fits, but exactly one mutant matches on every minimal case: "behaves like sNN on these
  inputs".
- Anything else, a fitting kill set included, names no pitfall: the failed checks and their minimal
  cases say what is wrong, and a guess beside them would teach the wrong lesson.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from dedup_harness.core.catalogue import load_catalogue
from dedup_harness.core.kill_matrix import load_kill_sets
from dedup_harness.core.paths import MUTANTS_DIR


class Evidence(StrEnum):
    FAILS_LIKE = "fails like"  # the kill set is the evidence, and the behaviour matches everywhere
    PARTLY = "fails partly like"  # one of the one pair of kill sets that together are the evidence
    BEHAVES_LIKE = "behaves like"  # no kill set fits, but the behaviour matches on every minimal case


@dataclass(frozen=True)
class Diagnosis:
    mutant: str
    pitfall: str
    checks: tuple[str, ...]  # the mutant's kill set, sorted
    evidence: Evidence

    @property
    def exact(self) -> bool:
        """Does the mutant explain the whole submission (not one of a pair)?"""
        return self.evidence is not Evidence.PARTLY

    def line(self) -> str:
        where = " on these inputs" if self.evidence is Evidence.BEHAVES_LIKE else ""
        return f"{self.evidence} {self.mutant}{where}: {self.pitfall}"


@dataclass(frozen=True)
class Diagnoser:
    """The kill sets of the mutants and their pitfalls in words."""

    kill_sets: Mapping[str, frozenset[str]]
    pitfalls: Mapping[str, str]

    def diagnose(
        self, failed: frozenset[str], matches: Mapping[str, Sequence[str]], cased: frozenset[str]
    ) -> list[Diagnosis]:
        """The pitfalls proved for a submission that failed ``failed`` by an assertion, with minimal cases for
        ``cased``, where each mutant matched its behaviour on the cases of ``matches[mutant]``."""
        cased = cased & failed
        if not cased:
            return []  # no failing case to compare behaviour on: nothing is proved
        matched = {mutant: frozenset(checks) & cased for mutant, checks in matches.items()}
        sets = {mutant: kills for mutant, kills in sorted(self.kill_sets.items()) if kills}
        fitting = [mutant for mutant, kills in sets.items() if kills == failed]
        if fitting:
            return [self._named(m, Evidence.FAILS_LIKE) for m in fitting if matched.get(m, frozenset()) == cased]
        pair = self._pair(sets, failed)
        if pair is not None:
            return self._pair_proved(pair, sets, matched, cased)
        everywhere = [mutant for mutant, checks in sorted(matched.items()) if checks == cased]
        return [self._named(everywhere[0], Evidence.BEHAVES_LIKE)] if len(everywhere) == 1 else []

    def _pair(self, sets: Mapping[str, frozenset[str]], failed: frozenset[str]) -> tuple[str, str] | None:
        """The one pair of kill sets, neither inside the other, that together are the evidence."""
        pairs = [
            (a, b)
            for (a, ka), (b, kb) in itertools.combinations(sets.items(), 2)
            if ka | kb == failed and not ka <= kb and not kb <= ka
        ]
        return pairs[0] if len(pairs) == 1 else None

    def _pair_proved(
        self,
        pair: tuple[str, str],
        sets: Mapping[str, frozenset[str]],
        matched: Mapping[str, frozenset[str]],
        cased: frozenset[str],
    ) -> list[Diagnosis]:
        """Both of the pair, when each matches on the cases of the checks only it fails (and has some)."""
        a, b = pair
        own = {a: (sets[a] - sets[b]) & cased, b: (sets[b] - sets[a]) & cased}
        if all(own[m] and own[m] <= matched.get(m, frozenset()) for m in pair):
            return [self._named(m, Evidence.PARTLY) for m in pair]
        return []

    def _named(self, mutant: str, evidence: Evidence) -> Diagnosis:
        return Diagnosis(mutant, self.pitfalls.get(mutant, ""), tuple(sorted(self.kill_sets[mutant])), evidence)


def no_diagnoser() -> Diagnoser:
    """Diagnoses nothing: for a run where the kill matrix is not available."""
    return Diagnoser({}, {})


def load_diagnoser(mutants_dir: Path = MUTANTS_DIR) -> Diagnoser:
    """The committed kill sets (``kill_matrix.json``) and the pitfalls of the catalogue."""
    pitfalls = {mutant.id: mutant.pitfall for mutant in load_catalogue(mutants_dir)}
    return Diagnoser(load_kill_sets(mutants_dir), pitfalls)
