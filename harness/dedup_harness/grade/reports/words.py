"""What the reports for people (the terminal and the HTML page) say alike: protections, lost checks, pitfalls.

Each in words a TA reads without the code: the tier and each protection as a sentence (the raw
protections record is the JSON report's), the lost checks as ranges of numbers with a legend that
names each once, and each pitfall by its mutant with its words once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dedup_harness.core.checks import REGISTRY
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade import rules
from dedup_harness.grade.reports.model import GradeReport


@dataclass(frozen=True)
class ProtectionWords:
    """What was in force for a submission's worker, in sentences."""

    tier: str  # "the bubblewrap tier"
    in_force: tuple[str, ...]
    missing: tuple[str, ...]


def protections(record: Mapping[str, Any]) -> ProtectionWords:
    """The protections record (``sandbox.protections``) as the sentences it carries, its notes among those in force."""
    in_force = [*record.get("in_force", []), *record.get("notes", [])]
    return ProtectionWords(
        f"the {record.get('tier', '?')} tier", tuple(map(str, in_force)), tuple(map(str, record.get("missing", [])))
    )


def lost_numbers(report: GradeReport) -> list[int]:
    return [c.number for c in report.checks if c.outcome is not Outcome.PASSED]


def ranges(numbers: Sequence[int]) -> str:
    """``1 2 3 4 7 9 10`` as ``1-4 7 9-10``: short enough for a table's column."""
    spans: list[list[int]] = []
    for n in sorted(numbers):
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return " ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def fails_like(report: GradeReport) -> str:
    """The mutants a report fails like: one exactly, or two that together do (``s02+s04``)."""
    exact = [d.mutant for d in report.diagnosis if d.exact]
    return " ".join(exact) or "+".join(d.mutant for d in report.diagnosis)


def pitfall_titles(report: GradeReport) -> str:
    """Each pitfall a report fails like, with its words (for a page's hover text beside the short ids)."""
    return "; ".join(f"{d.mutant}: {d.pitfall}" for d in report.diagnosis)


def verdict_words(report: GradeReport) -> str:
    """A table's last cell: why a submission got nothing, or else the pitfalls it fails like, or else what the grader
    refused that cost it checks (the errors a refusal raises say nothing of why)."""
    lost = [c.feedback.for_students() for c in report.checks if c.outcome is not Outcome.PASSED and c.feedback]
    refused = next((f.refusals[0] for f in lost if f.refusals), "")
    return report.why_zero or fails_like(report) or (rules.SHORT[refused] if refused else "")


def check_legend(reports: Iterable[GradeReport]) -> list[tuple[int, str]]:
    """Each check some report lost, by number, with its name: said once, under the table."""
    lost = {n for report in reports for n in lost_numbers(report)}
    return [(check.number, check.name) for check in REGISTRY if check.number in lost]


def pitfall_legend(reports: Iterable[GradeReport]) -> list[tuple[str, str]]:
    """Each mutant some report fails like, with its pitfall in words: said once, under the table."""
    found = {d.mutant: d.pitfall for report in reports for d in report.diagnosis}
    return sorted(found.items())
