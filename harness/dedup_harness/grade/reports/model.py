"""A submission's grade as data: its status, score, and each check's outcome, points and feedback.

Every report format (``grade/reports``) renders this and nothing else; building it is the grader's
job (``grade/grader.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any

from dedup_harness.core.impl_roots import modules_words
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.diagnosis import Diagnosis
from dedup_harness.grade.feedback import CheckFeedback


class Status(StrEnum):
    GRADED = "graded"  # every check has an outcome, whatever the score
    HARNESS_ERROR = "harness-error"  # the grader itself failed: the score means nothing


@dataclass(frozen=True)
class CheckReport:
    number: int  # the check's place in the suite (core.checks), from 1
    name: str
    outcome: Outcome
    score: Fraction  # exact: grade.scoring writes it with fixed places
    max_score: Fraction
    feedback: CheckFeedback | None  # None when the check passed
    seconds: float = 0.0  # a timing field: how long the check's cases ran in the suite process


@dataclass
class GradeReport:
    submission: str  # the name the submission was given on the command line
    status: Status
    score: Fraction
    max_score: Fraction
    checks: list[CheckReport]
    problems: list[str] = field(default_factory=list)  # found before the checks ran, in plain words
    diagnosis: list[Diagnosis] = field(default_factory=list)
    # When no check could judge the submission (every check it lost crashed or hung): why, in words.
    unjudged: str = ""
    # When it got nothing: why, in one phrase ("syntax error (line 12)", "timed out"); "" otherwise.
    why_zero: str = ""
    protections: dict[str, Any] = field(default_factory=dict)
    # What the submission tried that the worker refused or watched, each with where it happened: the
    # kernel's refusals, and the worker's hook's notes marked as such (``attempts_source`` says which).
    attempts: list[str] = field(default_factory=list)
    # Set when the run graded without isolation (``--unisolated``): every format says it first.
    warning: str = ""
    student_output: str = ""
    held_back_output: str = ""  # what it printed in the held-back run: for staff alone, as its cases are
    harness_error: str = ""
    seconds: float = 0.0  # a timing field: the only thing that may differ between two gradings
    # Which of the course's earlier modules (doc, hashing, bloom) ran as the student's own, beside their
    # dedup.py (the course's otherwise); and their own that lay beside it but were left out.
    own_modules: list[str] = field(default_factory=list)
    unused_modules: list[str] = field(default_factory=list)

    def lost(self) -> frozenset[str]:
        return frozenset(check.name for check in self.checks if check.outcome is not Outcome.PASSED)

    def failed(self) -> frozenset[str]:
        """The checks lost by an assertion: the only evidence of a pitfall."""
        return frozenset(check.name for check in self.checks if check.outcome is Outcome.FAILED)


ATTEMPTS_SEEN_BY_THE_KERNEL = (
    "the kernel's refusals, as the grader saw each call, and notes of the worker's own audit hook "
    '(marked "worker\'s hook")'
)
ATTEMPTS_FROM_THE_HOOK = (
    "as the grading worker's own audit hook noted them: code can silence it, so this list may be incomplete"
)


ATTEMPTS_NOTICED_BY_CHECK = (
    "what grade refuses, as `dedup-harness check` noticed your code do it here: each check it happened in scores "
    "as it would in grade"
)


def attempts_source(report: GradeReport) -> str:
    """Where the report's attempts come from, in words their heading carries."""
    source = report.protections.get("attempts_from")
    if source == "check":
        return ATTEMPTS_NOTICED_BY_CHECK
    return ATTEMPTS_SEEN_BY_THE_KERNEL if source == "kernel" else ATTEMPTS_FROM_THE_HOOK


def attempts_heading(report: GradeReport) -> str | None:
    """Where the attempts listed come from, for their heading; None when there is nothing to say. A list the worker's
    own hook made is said to be possibly incomplete even when it is empty: the submission can silence the hook."""
    if not report.attempts and report.protections.get("attempts_from") != "hook":
        return None
    return attempts_source(report) + ("" if report.attempts else "; none listed")


def modules_line(report: GradeReport) -> str:
    """Which modules came from where, as a report says first: "modules: dedup.py yours; doc.py, ... the course's"."""
    unused = [f"corpus/{name}.py" for name in report.unused_modules]
    left_out = f" (yours beside it, not used: {', '.join(unused)})" if unused else ""
    return f"modules: {modules_words(report.own_modules)}{left_out}"


def batch_warning(reports: Sequence[GradeReport]) -> str:
    """What a batch's reports say first: the run graded without isolation (the same for every report)."""
    return reports[0].warning if reports else ""
