"""``check``'s run: a student's own code through grade's grader, in-process, and the grade it predicts.

It grades as ``grade`` does (``grade.grader.grade`` with ``in_process``), with the modules grade uses (the
course's; the student's own in a kit built with ``--own-deps``), and reads what the plugin noticed that grade would
refuse as fields, never words read back: such a check has already ended as grade's refusal does, a refused import
zeroes every check, and the exit status is 0 only when grade would give full marks. Pitfall names need the
mutants: the staff install names them as grade does; the student kit holds none and says that grade names them
(docs/check.md).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dedup_harness.check.noticed import Noticed
from dedup_harness.check.plugin import plugin_args
from dedup_harness.core import scratch_dirs
from dedup_harness.core.paths import REFERENCE_SOURCE
from dedup_harness.grade.diagnosis import Diagnoser, load_diagnoser, no_diagnoser
from dedup_harness.grade.grader import GradingOptions, grade
from dedup_harness.grade.reports.model import GradeReport, Status
from dedup_harness.grade.scoring import ZERO, equal_weights, out_of

# A kit built with --holds-back: the course grades on cases check cannot run.
HOLDS_BACK_WORDS = (
    "your course also grades on cases it holds back: check runs the public cases alone, so a check that passes "
    "here can still lose its points in grade"
)
NO_PITFALL_NAMES = (
    "pitfalls: grade names the known mistake your failures show, where its evidence proves one; this kit holds "
    "no mutant to compare with, so check does not guess (the minimal cases above say what differs)"
)


UNFORESEEN_WORDS = (
    "your code calls C through ctypes (first at {site}): grade's kernel filter judges those calls, and check"
    " cannot see them (it refuses shared memory and processes made that way), so it cannot say what grade gives"
)


@dataclass
class Checked:
    """What check found: the report (as grade would give it), what grade would refuse, whether pitfalls are named."""

    report: GradeReport
    noticed: list[Noticed]
    refused_imports: list[str]
    names_pitfalls: bool
    unforeseen: list[str] = field(default_factory=list)  # where the code used ctypes: check cannot predict grade
    with_own: str = ""  # "N/14" with the student's own modules, where grade uses the course's beside theirs

    def exit_status(self) -> int:
        """0 only when grade would give full marks; 1 otherwise; 2 when the harness could not check."""
        if self.report.status is Status.HARNESS_ERROR:
            return 2
        full = self.report.score == self.report.max_score
        return 0 if full and not (self.noticed or self.refused_imports or self.unforeseen) else 1


def can_name_pitfalls() -> bool:
    """Does this install hold the mutants that naming a pitfall needs (the staff install; never the kit)?"""
    return REFERENCE_SOURCE.is_file()


def diagnoser() -> Diagnoser:
    """The committed kill sets and the catalogue's words, where the mutants are installed; none otherwise."""
    if not can_name_pitfalls():
        return no_diagnoser()
    try:
        return load_diagnoser()
    except (OSError, ValueError, KeyError):
        return no_diagnoser()


def check_submission(path: Path, *, allowed: Sequence[str] = (), own_deps: bool = False) -> Checked:
    """Grade ``path`` in this process as grade would, with the student's own modules where ``own_deps`` (as grade's).
    Where the course's lose points beside the student's own, again with theirs (the score alone: no minimal cases),
    so a correct submission costs one run."""
    with scratch_dirs.Scratch("check") as scratch:
        noticed_file, theirs = Path(scratch) / "noticed.json", Path(scratch) / "with-own.json"
        options = GradingOptions(equal_weights(), diagnoser(), own_deps=own_deps)
        sidecar = functools.partial(plugin_args, allowed=allowed)
        report = grade(path, options, in_process=functools.partial(sidecar, noticed_file=noticed_file))
        with_own = ""
        if report.unused_modules and report.score < report.max_score and report.status is not Status.HARNESS_ERROR:
            quick = dataclasses.replace(options, diagnoser=no_diagnoser(), own_deps=True, minimize=False)
            mine = grade(path, quick, in_process=functools.partial(sidecar, noticed_file=theirs))
            with_own = out_of(as_grade_would(mine, _read(theirs).get("refused_imports", [])).score, mine.max_score)
        found = _read(noticed_file)
    noticed = [Noticed(**entry) for entry in found.get("noticed", [])]
    refused = [str(message) for message in found.get("refused_imports", [])]
    unforeseen = [str(site) for site in found.get("unforeseen", [])]
    return Checked(as_grade_would(report, refused), noticed, refused, can_name_pitfalls(), unforeseen, with_own)


def _read(noticed_file: Path) -> dict[str, Any]:
    return json.loads(noticed_file.read_text(encoding="utf-8")) if noticed_file.is_file() else {}


def as_grade_would(report: GradeReport, refused_imports: Sequence[str]) -> GradeReport:
    """The report with grade's points: an import grade refuses gives every check 0 there (the outcomes stay, as
    the checks ran here, so the student still sees what their code does)."""
    if not refused_imports or report.status is Status.HARNESS_ERROR:
        return report
    report.checks = [dataclasses.replace(check, score=ZERO) for check in report.checks]
    report.score = ZERO
    return report
