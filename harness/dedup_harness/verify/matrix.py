"""The kill matrix: every check's outcome for every target, and the breaches of what was expected.

Only an assertion failure (``failed``) kills. A mutant whose suite run could not import or collect
is *broken*, never killed. Every verify run compares the kill sets it measured with the committed
ones (``dedup_harness.core.kill_matrix``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from dedup_harness.core.outcome import Outcome
from dedup_harness.core.runner.result import SuiteResult, said
from dedup_harness.verify.targets import Kind, Target


class BreachKind(StrEnum):
    CANARY_SURVIVED = "canary-survived"  # a check did not fail on the always-wrong canary
    REFERENCE_FAILURE = "reference-failure"  # the reference did not pass a check
    SURVIVOR = "survivor"  # a mutant did not fail (by an assertion) a check its entry names
    BROKEN_MUTANT = "broken-mutant"  # a mutant's suite run could not import or collect
    DIFF_DOES_NOT_APPLY = "diff-does-not-apply"  # a mutant's diff no longer applies to the reference
    STALE_KILL_MATRIX = "stale-kill-matrix"  # the committed kill_matrix.json differs from the measured one


@dataclass(frozen=True)
class Breach:
    kind: BreachKind
    target: str
    check: str | None
    detail: str

    def line(self) -> str:
        where = f"{self.target} / {self.check}" if self.check else self.target
        return f"{self.kind}: {where}: {self.detail}"


@dataclass
class Row:
    target: Target
    result: SuiteResult | None

    @property
    def broken(self) -> bool:
        """Import or collection failed: no check could judge this target."""
        if self.result is None:
            return False
        outcomes = set(self.result.outcomes.values())
        return bool(self.result.collection_errors) or outcomes == {Outcome.ERROR}

    def outcome(self, check: str) -> Outcome | None:
        return None if self.result is None else self.result.outcomes.get(check)

    def kills(self) -> list[str]:
        return [] if self.result is None or self.broken else sorted(self.result.failed())

    def message(self, check: str) -> str:
        """The first case message of a check that did not pass: what the assertion or the crash said."""
        cases = self.result.cases.get(check, []) if self.result else []
        return next((said(c) for c in cases if c.get("outcome") != Outcome.PASSED), "")


@dataclass
class Matrix:
    checks: tuple[str, ...]
    rows: list[Row]
    breaches: list[Breach] = field(default_factory=list)
    committed: dict[str, list[str]] | None = None  # the kill matrix file as it was read

    def row(self, name: str) -> Row:
        return next(row for row in self.rows if row.target.name == name)

    def mutant_rows(self) -> list[Row]:
        return [row for row in self.rows if row.target.kind is Kind.MUTANT]

    def kill_sets(self) -> dict[str, list[str]]:
        """Each mutant that ran and was not broken, with the checks it failed."""
        return {row.target.name: row.kills() for row in self.mutant_rows() if row.result is not None and not row.broken}

    def kill_counts(self) -> dict[str, int]:
        sets = self.kill_sets().values()
        return {check: sum(check in kills for kills in sets) for check in self.checks}

    def idle_checks(self) -> list[str]:
        """Checks that kill no mutant: either the mutants miss a pitfall, or the check is redundant."""
        return [check for check, n in self.kill_counts().items() if n == 0]

    def identical_kill_sets(self) -> list[list[str]]:
        """Groups of mutants the suite cannot tell apart (same non-empty kill set)."""
        by_set: dict[tuple[str, ...], list[str]] = {}
        for name, kills in self.kill_sets().items():
            if kills:
                by_set.setdefault(tuple(kills), []).append(name)
        return [names for names in by_set.values() if len(names) > 1]

    @property
    def ok(self) -> bool:
        return not self.breaches


def judge(checks: tuple[str, ...], rows: list[Row], committed: dict[str, list[str]] | None) -> Matrix:
    """The matrix with every breach of expectation found, the committed kill matrix included."""
    matrix = Matrix(checks, rows, committed=committed)
    for row in rows:
        matrix.breaches.extend(_row_breaches(row, checks))
    if not any(b.kind is BreachKind.CANARY_SURVIVED for b in matrix.breaches):
        matrix.breaches.extend(_stale(matrix, committed))
    return matrix


def _row_breaches(row: Row, checks: tuple[str, ...]) -> list[Breach]:
    target = row.target
    if target.kind is Kind.TARGET:
        return []
    if row.result is None:
        return [Breach(BreachKind.DIFF_DOES_NOT_APPLY, target.name, None, target.problem)]
    if target.kind is Kind.CANARY:
        return [
            Breach(BreachKind.CANARY_SURVIVED, target.name, check, f"{row.outcome(check)} on the always-wrong canary")
            for check in checks
            if row.outcome(check) is not Outcome.FAILED
        ]
    if target.kind is Kind.REFERENCE:
        return [
            Breach(BreachKind.REFERENCE_FAILURE, target.name, check, f"{row.outcome(check)}: {row.message(check)}")
            for check in checks
            if row.outcome(check) is not Outcome.PASSED
        ]
    if row.broken:
        assert row.result is not None
        why = (row.result.collection_errors or [row.message(checks[0])])[0]
        return [Breach(BreachKind.BROKEN_MUTANT, target.name, None, f"import or collection failed: {why[:300]}")]
    return [
        Breach(BreachKind.SURVIVOR, target.name, check, _survival(row, check))
        for check in target.expected
        if row.outcome(check) is not Outcome.FAILED
    ]


def _survival(row: Row, check: str) -> str:
    outcome = row.outcome(check)
    if outcome is Outcome.PASSED:
        return "passed: the check does not catch this pitfall"
    return f"{outcome}, not an assertion failure: {row.message(check)[:300]}"


def _stale(matrix: Matrix, committed: dict[str, list[str]] | None) -> list[Breach]:
    """The committed kill matrix must equal the measured one, mutant by mutant."""
    measured = matrix.kill_sets()
    if committed is None:
        return [
            Breach(BreachKind.STALE_KILL_MATRIX, "kill_matrix.json", None, "missing; write it with --write-kill-matrix")
        ]
    breaches = []
    names = [row.target.name for row in matrix.mutant_rows()]
    for name in sorted(set(names) | set(committed)):
        if name in measured and committed.get(name) != measured[name]:
            detail = f"committed {committed.get(name)}, measured {measured[name]}; rewrite with --write-kill-matrix"
            breaches.append(Breach(BreachKind.STALE_KILL_MATRIX, name, None, detail))
        elif name not in names:
            breaches.append(Breach(BreachKind.STALE_KILL_MATRIX, name, None, "committed, but not in the catalogue"))
    return breaches
