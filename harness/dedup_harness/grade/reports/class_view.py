"""What a batch of grades says about the class: scores, each check's failure rate, pitfalls, refused attempts,
and the class grouped by what went wrong (``summary.signature``), each group with a minimal case its first
student showed.

The HTML report's data, apart from how it is drawn. Rates count graded submissions only (a harness
error says nothing about the student). Refused attempts are the report's ``attempts``: every
``attempt`` event of the worker, before the checks or in one (``grader.from_sidecar``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from dedup_harness.core.checks import REGISTRY
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.minimize.case import MinimalCase
from dedup_harness.grade.reports.model import CheckReport, GradeReport, Status, attempts_heading
from dedup_harness.grade.reports.summary import Outline, in_order, signature


@dataclass(frozen=True)
class CheckRate:
    number: int
    name: str
    asserts: str
    lost: int  # graded submissions that did not pass it
    graded: int

    @property
    def rate(self) -> float:
        return self.lost / self.graded if self.graded else 0.0


@dataclass(frozen=True)
class Pitfall:
    mutant: str
    pitfall: str
    exact: int  # submissions that fail exactly like the mutant
    partly: int  # submissions whose failures contain the mutant's

    @property
    def total(self) -> int:
        return self.exact + self.partly


@dataclass(frozen=True)
class Entry:
    """One submission: its report, the anchor of its section, what it lost and what it tried."""

    anchor: str
    report: GradeReport
    lost: tuple[int, ...]  # the numbers of the checks it did not pass
    attempts: tuple[str, ...]

    @property
    def attempts_heading(self) -> str | None:
        """Where its attempts come from (the kernel, or the worker's own hook alone); None: nothing to say."""
        return attempts_heading(self.report)


@dataclass(frozen=True)
class Group:
    """The students who went wrong one way: how (``summary.signature``), who, and one minimal case they share."""

    kind: str
    words: str
    entries: tuple[Entry, ...]
    case_from: tuple[Entry, CheckReport] | None  # the first student, and check, that shows a minimal case

    @property
    def case_check(self) -> CheckReport | None:
        return self.case_from[1] if self.case_from else None

    @property
    def case(self) -> MinimalCase | None:
        feedback = self.case_check.feedback if self.case_check else None
        return feedback.minimal_case if feedback else None


@dataclass(frozen=True)
class ClassView:
    entries: tuple[Entry, ...]
    rates: tuple[CheckRate, ...]
    pitfalls: tuple[Pitfall, ...]  # most submissions first
    groups: tuple[Group, ...] = ()  # largest first

    @property
    def graded(self) -> list[GradeReport]:
        return [e.report for e in self.entries if e.report.status is Status.GRADED]

    @property
    def flagged(self) -> list[Entry]:
        return [e for e in self.entries if e.attempts]


def class_view(reports: Sequence[GradeReport]) -> ClassView:
    entries = tuple(_entry(n, report) for n, report in enumerate(reports, start=1))
    graded = [r for r in reports if r.status is Status.GRADED]
    rates = tuple(
        CheckRate(check.number, check.name, check.asserts, sum(check.name in r.lost() for r in graded), len(graded))
        for check in REGISTRY
    )
    return ClassView(entries, rates, pitfalls(graded), by_what_went_wrong(entries))


def by_what_went_wrong(entries: Sequence[Entry]) -> tuple[Group, ...]:
    """The entries grouped by signature, largest group first, as ``summary.groups`` orders them."""
    found: dict[tuple[str, str], list[Entry]] = {}
    for entry in entries:
        found.setdefault(signature(Outline.of(entry.report)), []).append(entry)
    return tuple(Group(kind, words, tuple(members), shared_case(members)) for (kind, words), members in in_order(found))


def shared_case(members: Sequence[Entry]) -> tuple[Entry, CheckReport] | None:
    """The first member, and its first lost check, that shows a minimal case (the members share the signature)."""
    for entry in members:
        for check in entry.report.checks:
            if check.feedback is not None and check.feedback.minimal_case is not None:
                return entry, check
    return None


def pitfalls(graded: Sequence[GradeReport]) -> tuple[Pitfall, ...]:
    """Every mutant some submission fails like, by how many submissions show it (exact matches first)."""
    exact: Counter[str] = Counter()
    partly: Counter[str] = Counter()
    words: dict[str, str] = {}
    for report in graded:
        for diagnosis in report.diagnosis:
            (exact if diagnosis.exact else partly)[diagnosis.mutant] += 1
            words[diagnosis.mutant] = diagnosis.pitfall
    found = [Pitfall(m, words[m], exact[m], partly[m]) for m in words]
    return tuple(sorted(found, key=lambda p: (-p.total, -p.exact, p.mutant)))


def _entry(n: int, report: GradeReport) -> Entry:
    lost = tuple(c.number for c in report.checks if c.outcome is not Outcome.PASSED)
    return Entry(f"submission-{n}", report, lost, tuple(dict.fromkeys(report.attempts)))
