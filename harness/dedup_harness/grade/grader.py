"""Grade one submission: run the checks of the suite against it and turn the outcomes into a report.

A submission is a ``dedup.py`` file or a folder holding one. Its root is a scratch copy of the
reference root with the student's ``dedup.py`` in place of the reference's. The checks run in a
trusted pytest process; the report carries per-check points and plain-words feedback, the problems
found before the checks ran, a diagnosis from the kill matrix, and the student's captured output
(kept for staff, never shown to students unless asked).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.context import ForkServerContext
from pathlib import Path
from typing import Any

from dedup_harness.core import hidden_cases, scratch_dirs
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.impl_under_test import own_args
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.core.runner import SuiteResult, run_suite
from dedup_harness.core.runner.result import fold
from dedup_harness.grade import rules
from dedup_harness.grade.diagnosis import Diagnoser
from dedup_harness.grade.feedback import CheckFeedback, Said, asserts, check_feedback, scrub
from dedup_harness.grade.minimize import plugin as minimize_plugin
from dedup_harness.grade.minimize.case import MinimalCase
from dedup_harness.grade.plugin import budget_args, plugin_args, setup_args
from dedup_harness.grade.reports.model import CheckReport, GradeReport, Status
from dedup_harness.grade.sandbox.tiers import WorkerSetup
from dedup_harness.grade.scoring import ZERO, Weights
from dedup_harness.grade.submission import Problem, Submission, SubmissionError, prepare
from dedup_harness.grade.worker.categories import CATEGORIES

OUTPUT_LIMIT = 20_000  # characters of student output kept in a report
# A fixed hash seed for the trusted suite process: pytest lists the differing items of two dicts in
# set order, and the same submission must get the same words every time.
STEADY_ENV = {"PYTHONHASHSEED": "0"}
PER_RUN = ("uid",)  # protections that differ on every run (the worker's uid follows the grader's pid)
# Attempts by where they come from: the kernel's refusals ("the kernel refused ...", seen by the grader),
# the worker's audit hook's notes, marked as its word (a note can say anything the submission likes), and
# what check's own hook noticed in-process that grade would refuse (the report's heading says so).
ATTEMPT_SOURCES = {"refused": "", "attempt": "worker's hook: ", "noticed": ""}


@dataclass(frozen=True)
class GradingOptions:
    weights: Weights
    diagnoser: Diagnoser
    timeout: float = 300.0  # seconds for the whole suite: well past the worker's own budget
    budget: float = field(
        default_factory=lambda: rules.value("submission_seconds")
    )  # seconds of the worker's time for one submission (``client.budget``)
    check_timeout: float = 60.0  # seconds per case
    setup: WorkerSetup | None = None  # the tier and interpreter the preflight checked (None: each run probes)
    warning: str = ""  # the run grades without isolation (--unisolated): every report says this first
    # The student's own doc, hashing and bloom, where a corpus/ beside their dedup.py holds them, in place of
    # the course's (grade --own-deps, and check in a kit built with it). The course's are graded otherwise.
    own_deps: bool = False
    minimize: bool = True  # shrink each failed check's input (check's run with the student's own modules: no need)
    # The course's seed for the cases it holds back (grade --hidden-seed; never check's): every seeded check
    # runs those too (core/hidden_cases.py).
    hidden_seed: int | None = None


def grade(
    path: Path,
    options: GradingOptions,
    *,
    name: str | None = None,
    fork: ForkServerContext | None = None,
    in_process: Callable[[Path], list[str]] | None = None,
) -> GradeReport:
    """Grade the submission at ``path``: prepare its root, run the checks through the isolated worker.

    ``fork`` (from ``runner.start_fork_server``, whose children run with hash seed 0 as STEADY_ENV
    makes a fresh process's) runs the suite in a child of a warm fork server instead of a fresh
    interpreter: a batch saves the interpreter's start and imports on every submission.

    ``in_process`` (``check``: a student's own code, on their own machine) runs the submission's root
    in the suite's own process instead, with no worker: the same checks, minimal cases and report. It
    spells the pytest arguments of the plugin that writes the sidecar, given the sidecar's path.

    With the course's ``hidden_seed``, the seeded checks then run the cases it holds back in a run and a
    worker of their own (``core/hidden_cases.py``): nothing the submission did in it reaches what the
    public run's cases say, and what it printed or tried there is for staff alone.
    """
    started = time.monotonic()
    label = name if name is not None else str(path)
    with scratch_dirs.Scratch("grade") as scratch:  # ``check`` runs the student's code in it
        try:
            submission = prepare(path, Path(scratch), own_deps=options.own_deps)
        except SubmissionError as exc:  # nothing to run: a verdict of zero, with the reason
            report = unrunnable(label, options, [str(exc)], why=exc.cause)
        else:
            run = functools.partial(suite_run, submission, options, Path(scratch), fork=fork, in_process=in_process)
            public = run(None)
            held = run(options.hidden_seed) if options.hidden_seed is not None and not public.broken else None
            notes = [n.message for n in submission.notes]
            joined = public.joined(held)
            report = from_sidecar(label, joined.result, options, joined.data, submission.problems, notes=notes)
            report.own_modules, report.unused_modules = list(submission.own), list(submission.unused)
            report.held_back_output = scrub(held.data.get("student_output", ""))[:OUTPUT_LIMIT] if held else ""
    report.seconds = round(time.monotonic() - started, 3)
    return report


@dataclass
class SuiteRun:
    """One run of the suite for a submission: its outcomes, what the grading plugin saw, its minimal cases."""

    result: SuiteResult
    data: dict[str, Any]  # the sidecar, with the minimal cases and the mutants' matches
    held_back: bool = False

    @property
    def broken(self) -> bool:
        """Nothing ran: the suite failed, or no worker could start (the held-back run would say no more)."""
        return bool(harness_error(self.result)) or any(e.get("kind") == "sandbox" for e in self.data.get("events", []))

    def joined(self, held: SuiteRun | None) -> SuiteRun:
        """This (the public) run with the held-back run's cases, minimal cases and events, each marked as such."""
        if held is None:
            return self
        result = dataclasses.replace(self.result, outcomes=dict(self.result.outcomes), cases=dict(self.result.cases))
        for check, cases in held.result.cases.items():
            result.cases[check] = [*result.cases.get(check, []), *({**c, "held_back": True} for c in cases)]
            result.outcomes[check] = fold(result.cases[check])
        minimal = {**held.data["minimal_cases"], **self.data["minimal_cases"]}  # a public one first
        matches = {m: sorted({*self.data["matches"].get(m, []), *c}) for m, c in held.data["matches"].items()}
        events = [*self.data.get("events", []), *({**e, "held_back": True} for e in held.data.get("events", []))]
        data = {**self.data, "minimal_cases": minimal, "matches": {**self.data["matches"], **matches}}
        refused = {**held.data.get("refused", {}), **self.data.get("refused", {})}
        return SuiteRun(result, {**data, "events": events, "refused": refused})


def suite_run(
    submission: Submission,
    options: GradingOptions,
    scratch: Path,
    held_back_seed: int | None,
    *,
    fork: ForkServerContext | None,
    in_process: Callable[[Path], list[str]] | None,
) -> SuiteRun:
    """The suite's run for ``submission``: the public cases, or with ``held_back_seed`` the cases held back."""
    own = scratch / ("held-back" if held_back_seed is not None else "public")
    own.mkdir()
    sidecar, minimal = own / "grading.json", own / "minimal.json"
    if in_process is not None:
        root, plugins = submission.root, in_process(sidecar)
    else:
        options_args = [*setup_args(options.setup), *budget_args(options.budget)]
        root, plugins = IMPL_ROOT, plugin_args(submission.root, sidecar, *options_args)
    result = run_suite(
        root,
        profile="grading",
        timeout=options.timeout,
        check_timeout=options.check_timeout,
        extra_args=[
            *own_args(submission.own),
            *plugins,
            *(minimize_plugin.plugin_args(minimal) if options.minimize else ()),
            *hidden_cases.plugin_args(held_back_seed),
        ],
        env=STEADY_ENV,
        fork=fork,
        # The trusted process imports the suite and the reference, never the submission: caching the suite's
        # rewritten modules spares every later grade the rewrite (half a second).
        write_bytecode=in_process is None,
    )
    data = json.loads(sidecar.read_text(encoding="utf-8")) if sidecar.is_file() else {}
    cases, matches = read_minimal_cases(minimal, held_back=held_back_seed is not None)
    if held_back_seed is not None:  # a check the held-back run did not run has nothing to add
        result.outcomes = {check: outcome for check, outcome in result.outcomes.items() if check in result.cases}
    return SuiteRun(result, {**data, "minimal_cases": cases, "matches": matches}, held_back_seed is not None)


def from_sidecar(
    label: str,
    result: SuiteResult,
    options: GradingOptions,
    data: Mapping[str, Any],
    problems: Sequence[Problem] = (),
    *,
    notes: Sequence[str] = (),
) -> GradeReport:
    """The report from the suite's outcomes and what the grading plugin saw of the worker (``problems``: what
    compiling it found, said when the plugin said nothing); ``notes`` (on the submission's file itself:
    ``Submission.notes``) come first among its problems."""
    static = [Problem(**p) for p in data.get("static", [])] or list(problems)
    found = [*notes, *(p.message for p in static)]
    events: dict[str, list[Said]] = {}
    attempts = []
    for event in data.get("events", []):
        kind, detail, check = event.get("kind", "event"), str(event.get("detail", "")), str(event.get("check", ""))
        if kind == "sandbox":  # no worker could start: nothing here is the submission's doing
            return unrunnable(label, options, found, harness_error=scrub(detail))
        held_back = bool(event.get("held_back"))
        if kind in ATTEMPT_SOURCES and not held_back:  # the held-back run's are for staff: in its events
            where = where_refused(str(event.get("category", "")), check, result, data.get("refused", {}))
            attempts.append(f"{ATTEMPT_SOURCES[kind]}{detail} ({where})")
        if check == minimize_plugin.SHRINKING:
            continue  # what a submission did while its failing cases were shrunk is not a check's verdict
        if check in CHECKS:
            events.setdefault(check, []).append(Said(kind, detail, held_back))
        elif kind not in ATTEMPT_SOURCES and kind not in {p.kind for p in static} and not held_back:
            found.append(Said(kind, detail).words())  # outside any check, unless a problem found first says it
    return from_result(
        label,
        result,
        options,
        problems=found,
        events=events,
        student_output=str(data.get("student_output", "")),
        protections=data.get("protections", {}),
        minimal_cases=data.get("minimal_cases", {}),
        matches=data.get("matches", {}),
        attempts=attempts,
        refused=data.get("refused", {}),
        causes=[p.cause for p in static if p.cause],
    )


def where_refused(category: str, check: str, result: SuiteResult, refused: Mapping[str, Sequence[str]]) -> str:
    """Where an attempt is said to have happened: the check it came in, or every check the submission lost when
    each of them met its rule (a pool refused in every check is not check 3's alone, though it came there first)."""
    lost = [name for name in CHECKS if result.outcomes.get(name) is not Outcome.PASSED]
    if category and len(lost) > 1 and all(category in refused.get(name, ()) for name in lost):
        return "every check it lost"
    return check.strip("()")


def from_result(
    label: str,
    result: SuiteResult,
    options: GradingOptions,
    *,
    problems: list[str],
    events: Mapping[str, list[Said]] | None = None,
    student_output: str = "",
    protections: Mapping[str, Any] | None = None,
    minimal_cases: Mapping[str, MinimalCase] | None = None,
    matches: Mapping[str, Sequence[str]] | None = None,
    attempts: Sequence[str] = (),
    refused: Mapping[str, Sequence[str]] | None = None,
    causes: Sequence[str] = (),
) -> GradeReport:
    """The report for a finished suite run; ``refused`` gives, by check, the categories of the rules its
    worker's refusals met (``faults.EventLog.refused``)."""
    events, minimal_cases, refused = events or {}, minimal_cases or {}, refused or {}
    error = harness_error(result)
    if error:
        return unrunnable(label, options, problems, harness_error=scrub(error))
    checks = [
        CheckReport(
            number=n,
            name=name,
            outcome=result.outcomes[name],
            score=options.weights.points[name] if result.outcomes[name] is Outcome.PASSED else ZERO,
            max_score=options.weights.points[name],
            feedback=check_feedback(
                name,
                result.outcomes[name],
                result.cases.get(name, []),
                events=events.get(name, []),
                minimal_case=minimal_cases.get(name),
                refused=refused.get(name, ()),
            ),
            seconds=result.check_seconds(name),
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
        protections=json.loads(scrub(json.dumps({k: v for k, v in (protections or {}).items() if k not in PER_RUN}))),
        student_output=scrub(student_output)[:OUTPUT_LIMIT],
        attempts=[scrub(attempt) for attempt in attempts],
        warning=options.warning,
    )
    report.diagnosis = options.diagnoser.diagnose(report.failed(), matches or {}, frozenset(minimal_cases))
    report.unjudged = unjudged(report)
    report.why_zero = why_zero(report, causes)
    return report


def why_zero(report: GradeReport, causes: Sequence[str]) -> str:
    """Why a report that got nothing got nothing, in one phrase ("" when it got something): the first problem
    found before the checks ran; else what every check it lost came to (refused, timed out, crashed with)."""
    if report.score != ZERO or report.max_score == ZERO:
        return ""
    if causes:
        return scrub(causes[0])
    lost = [c for c in report.checks if c.outcome is not Outcome.PASSED and c.feedback is not None]
    feedback = [c.feedback for c in lost if c.feedback is not None]
    refused = [category for category in CATEGORIES if feedback and all(category in f.refusals for f in feedback)]
    if refused:
        return rules.SHORT[refused[0]]
    if lost and all(c.outcome is Outcome.TIMEOUT for c in lost):
        return "timed out"
    if lost and all(c.outcome is Outcome.ERROR for c in lost):
        errors = [f.crashed_with for f in feedback if f.crashed_with]
        return f"crashed in every check: {errors[0]}" if errors else "crashed in every check"
    return "failed every check"


def unjudged(report: GradeReport) -> str:
    """The headline when no check failed by an assertion and some crashed or hung (else empty), as the
    table shows it: "every check crashed" when none passed (each check ran and crashed: the import was
    fine, or it would be a problem line); otherwise how many passed and how many crashed or hung.
    Either way with the first error."""
    lost = [c for c in report.checks if c.outcome is not Outcome.PASSED]
    if not lost or report.failed():
        return ""
    # for_students: a case held back (and what crashed on it) stays out of a headline students read
    shown = [c.feedback.for_students() for c in lost if c.feedback]
    first = next((f.headline for f in shown if f.headline), "")
    refusal = next((f.refusals[0] for f in shown if f.refusals), "")
    if refusal:  # what the grader refused is the cause: the error it raised says nothing of why
        first = f"{rules.SHORT[refusal]} ({first})" if first else rules.SHORT[refusal]
    crashed = sum(c.outcome is Outcome.ERROR for c in lost)
    hung = len(lost) - crashed
    passed = len(report.checks) - len(lost)
    if not passed:
        how = "crashed" if not hung else "hung" if not crashed else f"crashed ({crashed}) or hung ({hung})"
        return f"every check {how}" + (f"; the first error: {first}" if first else "")
    if not hung and first:
        return f"{_checks(passed)} passed; {crashed} crashed with {first}"
    counts = " and ".join(f"{n} {how}" for n, how in ((crashed, "crashed"), (hung, "hung")) if n)
    return f"{_checks(passed)} passed; {counts}" + (f"; the first error: {first}" if first else "")


def _checks(n: int) -> str:
    return f"{n} check{'' if n == 1 else 's'}"


def read_minimal_cases(path: Path, *, held_back: bool) -> tuple[dict[str, MinimalCase], dict[str, list[str]]]:
    """The minimal failing cases the shrinking plugin wrote (``held_back``: of the held-back run's cases), and on
    which of them each mutant behaved like the submission (neither when it could not run)."""
    if not path.is_file():
        return {}, {}
    written = json.loads(path.read_text(encoding="utf-8"))
    cases = {name: MinimalCase(**{**case, "held_back": held_back}) for name, case in written["cases"].items()}
    return cases, {mutant: list(checks) for mutant, checks in written["matches"].items()}


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


def unrunnable(
    label: str, options: GradingOptions, problems: list[str], *, harness_error: str = "", why: str = ""
) -> GradeReport:
    """A report where no check ran: zero points, and the reason in place of every check's feedback (and in one
    phrase, ``why``: "the grader failed" for a harness error)."""
    reason = "The check did not run: " + ("the grader failed." if harness_error else "the submission cannot be graded.")
    said = {name: CheckFeedback(asserts(name), Outcome.ERROR, reason=reason) for name in CHECKS}
    checks = [
        CheckReport(n, name, Outcome.ERROR, ZERO, options.weights.points[name], said[name])
        for n, name in enumerate(CHECKS, start=1)
    ]
    return GradeReport(
        submission=label,
        status=Status.HARNESS_ERROR if harness_error else Status.GRADED,
        score=ZERO,
        max_score=options.weights.max_score,
        checks=checks,
        problems=problems,
        harness_error=harness_error,
        warning=options.warning,
        why_zero="the grader failed" if harness_error else scrub(why),
    )
