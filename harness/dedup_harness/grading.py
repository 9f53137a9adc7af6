"""Grade one submission: run the twelve checks against it and turn the outcomes into a report.

A submission is a ``dedup.py`` file or a folder holding one. Its root is a scratch copy of the
reference root with the student's ``dedup.py`` in place of the reference's. The checks run in a
trusted pytest process; the report carries per-check points and plain-words feedback, the problems
found before the checks ran, a diagnosis from the kill matrix, and the student's captured output
(kept for staff, never shown to students unless asked).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from dedup_harness.checks import CHECKS
from dedup_harness.diagnosis import Diagnoser, Diagnosis
from dedup_harness.feedback import ASSERTS, CheckFeedback, Scrubber, check_feedback
from dedup_harness.outcomes import Outcome
from dedup_harness.paths import IMPL_ROOT
from dedup_harness.runner import SuiteResult, run_suite
from dedup_harness.scoring import Weights

OUTPUT_LIMIT = 20_000  # characters of student output kept in a report
SUBMISSION_NAME = "dedup.py"
SKIPPED_FOLDERS = {"__MACOSX", "__pycache__"}


class Status(StrEnum):
    GRADED = "graded"  # every check has an outcome, whatever the score
    HARNESS_ERROR = "harness-error"  # the grader itself failed: the score means nothing


@dataclass(frozen=True)
class CheckReport:
    number: int  # 1..12, the check's place in SPEC 5
    name: str
    outcome: Outcome
    score: float
    max_score: float
    feedback: CheckFeedback | None  # None when the check passed


@dataclass
class GradeReport:
    submission: str  # the name the submission was given on the command line
    status: Status
    score: float
    max_score: float
    checks: list[CheckReport]
    problems: list[str] = field(default_factory=list)  # found before the checks ran, in plain words
    diagnosis: list[Diagnosis] = field(default_factory=list)
    protections: dict[str, Any] = field(default_factory=dict)
    student_output: str = ""
    harness_error: str = ""
    seconds: float = 0.0  # a timing field: the only thing that may differ between two gradings

    def lost(self) -> frozenset[str]:
        return frozenset(check.name for check in self.checks if check.outcome is not Outcome.PASSED)


@dataclass(frozen=True)
class GradingOptions:
    weights: Weights
    diagnoser: Diagnoser
    timeout: float = 180.0  # seconds for the whole suite
    check_timeout: float = 60.0  # seconds per case


class SubmissionError(ValueError):
    """The path given cannot be a submission at all (it does not exist)."""


def locate(path: Path) -> tuple[Path | None, list[str]]:
    """The student's dedup.py under ``path``, or None with the problem in plain words."""
    if not path.exists():
        raise SubmissionError(f"{path}: no such file or folder")
    if path.is_file():
        if path.suffix != ".py":
            return None, [f"{path.name} is not a Python file: submit {SUBMISSION_NAME}"]
        return path, []
    found = sorted(
        (p for p in path.rglob(SUBMISSION_NAME) if p.is_file() and not _skipped(p.relative_to(path))),
        key=lambda p: (len(p.relative_to(path).parts), str(p)),
    )
    if not found:
        return None, [f"no {SUBMISSION_NAME} in the submission (the file must be named exactly {SUBMISSION_NAME})"]
    problems = []
    if len(found) > 1:
        others = ", ".join(str(p.relative_to(path)) for p in found[1:])
        problems.append(f"several {SUBMISSION_NAME} files; graded {found[0].relative_to(path)}, ignored {others}")
    return found[0], problems


def _skipped(relative: Path) -> bool:
    return any(part in SKIPPED_FOLDERS or part.startswith(".") for part in relative.parts[:-1])


def prepare_root(student: Path, scratch: Path) -> Path:
    """A scratch copy of the reference root with the student's dedup.py in place of the reference's."""
    root = scratch / "root"
    shutil.copytree(IMPL_ROOT, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copyfile(student, root / "corpus" / SUBMISSION_NAME)
    return root


def grade(path: Path, options: GradingOptions, *, name: str | None = None) -> GradeReport:
    """Grade the submission at ``path``; raises SubmissionError only when ``path`` does not exist."""
    started = time.monotonic()
    label = name if name is not None else str(path)
    student, problems = locate(path)
    if student is None:
        report = unrunnable(label, options, problems)
    else:
        with tempfile.TemporaryDirectory(prefix="dedup-harness-grade-") as scratch:
            root = prepare_root(student, Path(scratch))
            basetemp = Path(scratch) / "tmp"
            result = run_suite(
                root,
                profile="grading",
                timeout=options.timeout,
                check_timeout=options.check_timeout,
                extra_args=[f"--basetemp={basetemp}"],
            )
            scrub = Scrubber({str(basetemp): "<tmp>", str(root): "<submission>", str(scratch): "<scratch>"})
            report = from_result(label, result, options, problems=problems, scrub=scrub)
    report.seconds = round(time.monotonic() - started, 3)
    return report


def from_result(
    label: str,
    result: SuiteResult,
    options: GradingOptions,
    *,
    problems: list[str],
    scrub: Scrubber,
    events: Mapping[str, list[str]] | None = None,
    student_output: str = "",
    protections: Mapping[str, Any] | None = None,
) -> GradeReport:
    """The report for a finished suite run."""
    events = events or {}
    error = harness_error(result)
    if error:
        return unrunnable(label, options, problems, harness_error=scrub(error))
    checks = [
        CheckReport(
            number=n,
            name=name,
            outcome=result.outcomes[name],
            score=options.weights.points[name] if result.outcomes[name] is Outcome.PASSED else 0.0,
            max_score=options.weights.points[name],
            feedback=check_feedback(
                name, result.outcomes[name], result.cases.get(name, []), scrub=scrub, events=events.get(name, [])
            ),
        )
        for n, name in enumerate(CHECKS, start=1)
    ]
    passed = frozenset(c.name for c in checks if c.outcome is Outcome.PASSED)
    report = GradeReport(
        submission=label,
        status=Status.GRADED,
        score=options.weights.earned(passed),
        max_score=options.weights.max_score,
        checks=checks,
        problems=[scrub(p) for p in problems],
        protections=dict(protections or {}),
        student_output=scrub(student_output)[:OUTPUT_LIMIT],
    )
    report.diagnosis = options.diagnoser.diagnose(report.lost())
    return report


def harness_error(result: SuiteResult) -> str:
    """Why a suite run says nothing about the submission, or "" when its outcomes stand."""
    if result.collection_errors:
        return "the suite could not be collected:\n" + "\n".join(result.collection_errors)
    timed_out = all(outcome is Outcome.TIMEOUT for outcome in result.outcomes.values())
    if result.exitstatus is None and not timed_out:
        return "the suite process ended without reporting any outcome:\n" + result.output_tail
    if result.exitstatus is not None and result.exitstatus not in (0, 1):
        return f"pytest ended with status {result.exitstatus}:\n{result.output_tail}"
    return ""


def unrunnable(label: str, options: GradingOptions, problems: list[str], *, harness_error: str = "") -> GradeReport:
    """A report where no check ran: zero points, and the reason in place of every check's feedback."""
    reason = "The check did not run: " + ("the grader failed." if harness_error else "the submission cannot be graded.")
    checks = [
        CheckReport(
            n, name, Outcome.ERROR, 0.0, options.weights.points[name], CheckFeedback(ASSERTS[name], (reason,), "")
        )
        for n, name in enumerate(CHECKS, start=1)
    ]
    return GradeReport(
        submission=label,
        status=Status.HARNESS_ERROR if harness_error else Status.GRADED,
        score=0.0,
        max_score=options.weights.max_score,
        checks=checks,
        problems=problems,
        harness_error=harness_error,
    )
