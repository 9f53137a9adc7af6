"""Reports built from made-up suite outcomes, so the report code is tested without running a grade."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.runner.result import SuiteResult
from dedup_harness.grade.diagnosis import Diagnoser
from dedup_harness.grade.grader import GradingOptions, from_result
from dedup_harness.grade.minimize.case import MinimalCase
from dedup_harness.grade.reports.model import GradeReport
from dedup_harness.grade.scoring import equal_weights

KILL_SETS = {
    "s01": frozenset({CHECKS[0], CHECKS[1]}),
    "s02": frozenset({CHECKS[3]}),
    "s04": frozenset({CHECKS[2]}),
    "s07": frozenset({CHECKS[4]}),
    "s13": frozenset({CHECKS[10]}),
}
PITFALLS = {
    "s01": "keeps the last occurrence of each paragraph instead of the first",
    "s02": "compares occurrences only across documents",
    "s04": "drops every Bloom positive without confirming it",
    "s07": "splits paragraphs only on a blank-line string",
    "s13": "leaves the spool behind when closed early",
}
DIAGNOSER = Diagnoser(KILL_SETS, PITFALLS)
OPTIONS = GradingOptions(equal_weights(), DIAGNOSER)

ORACLE_MESSAGE = "the output differs from the set oracle's: document 'd0' is missing from the output"
# What a failed case of the oracle check tried, as the outcome recorder keeps it (``case_log.shown``).
TRIED = {"docs": [{"id": "d0", "text": "a", "meta": {}}], "bloom_bytes_per_item": 0.1}


def case(
    name: str, outcome: Outcome, said: str = "", tried: dict[str, Any] | None = None, label: str = ""
) -> dict[str, Any]:
    """A case as the outcome recorder writes it. ``said``: a failed case's verdict, in its differences' words;
    a crashed one's ``Type: text`` (the type it raised, then its message); ``tried``: its input."""
    suffix = f"[{label}]" if label else ""
    record: dict[str, Any] = {"nodeid": f"suite/x.py::{name}{suffix}", "outcome": str(outcome), "case_id": label}
    if outcome is Outcome.FAILED:
        verdict = {"differences": [said], "expected": {}, "got": {}}
        record |= {"error": "VerdictFailed", "message": said, "raised": "VerdictFailed", "verdict": verdict}
    elif said:
        error, _, message = said.partition(": ")
        record |= {"error": error, "message": message, "raised": error}
    return {**record, "input": tried or {}, "seconds": 0.25}


def suite_result(
    outcomes: Mapping[str, Outcome], cases: Mapping[str, list[dict[str, Any]]] | None = None
) -> SuiteResult:
    full = {name: outcomes.get(name, Outcome.PASSED) for name in CHECKS}
    all_cases = {name: [case(name, outcome)] for name, outcome in full.items()}
    all_cases.update(cases or {})
    failed = any(o is not Outcome.PASSED for o in full.values())
    return SuiteResult(root=Path("/nowhere"), outcomes=full, cases=all_cases, exitstatus=1 if failed else 0)


def report(
    outcomes: Mapping[str, Outcome] | None = None,
    cases: Mapping[str, list[dict[str, Any]]] | None = None,
    *,
    name: str = "alice/dedup.py",
    options: GradingOptions = OPTIONS,
    problems: list[str] | None = None,
    attempts: list[str] | None = None,
    student_output: str = "",
    behaves_like: Mapping[str, list[str]] | None = None,
    minimal_cases: Mapping[str, MinimalCase] | None = None,
    protections: Mapping[str, Any] | None = None,
) -> GradeReport:
    """A report from these outcomes. Every check failed by an assertion gets a minimal case (made up unless
    ``minimal_cases`` gives them), and every mutant behaves like the submission on all of them unless
    ``behaves_like`` says on which each does."""
    failed = [check for check, outcome in (outcomes or {}).items() if outcome is Outcome.FAILED]
    made = from_result(
        name,
        suite_result(outcomes or {}, cases),
        options,
        problems=problems or [],
        student_output=student_output,
        minimal_cases=minimal_cases if minimal_cases is not None else {check: minimal(check) for check in failed},
        matches=behaves_like if behaves_like is not None else {mutant: list(CHECKS) for mutant in KILL_SETS},
        protections=protections,
    )
    made.seconds = 1.5
    made.attempts = list(attempts or [])
    return made


def minimal(check: str) -> MinimalCase:
    """A made-up minimal case for ``check``: two documents, the second should have been dropped."""
    docs = [{"id": "d1", "text": "a", "meta": {}}, {"id": "d2", "text": "a", "meta": {}}]
    return MinimalCase(
        input={"docs": docs, "bloom_bytes_per_item": 10},
        expected={"output": docs[:1]},
        got={"output": docs},
        differences=["document 'd2': expected to be dropped, came out as 'a'"],
        documents=2,
        characters=2,
        shrunk=True,
        origin={"documents": 40, "characters": 900},
    )


def buggy_report(name: str = "bob/dedup.py") -> GradeReport:
    """Fails the oracle check with a shrunk example and the Bloom check on its counts: two pitfalls."""
    return report(
        {CHECKS[2]: Outcome.FAILED, CHECKS[3]: Outcome.FAILED},
        {
            CHECKS[3]: [
                case(CHECKS[3], Outcome.FAILED, ORACLE_MESSAGE, TRIED, label="0.1"),
                case(CHECKS[3], Outcome.PASSED, label="1"),
            ],
            CHECKS[2]: [case(CHECKS[2], Outcome.FAILED, "the stage counted 3 false positives, expected 0")],
        },
        name=name,
        student_output="debug: hello\n",
    )


PROTECTIONS = {
    "tier": "bubblewrap",
    "in_force": ["bubblewrap: new network, pid, ipc and uts namespaces", "user: uid 1234 (unprivileged)"],
    "missing": [],
    "notes": [],
    "process_namespace": True,
    "harness_files_hidden": True,
}


def keeps_last_case(text: str = "a", *, stats: bool = True) -> MinimalCase:
    """The minimal case of a stage that keeps the last copy of a paragraph, as the shrinking plugin writes it."""
    docs = [{"id": "d1", "text": text, "meta": {}}, {"id": "d2", "text": text, "meta": {}}]
    counts = {"docs_in": 2, "paragraphs": 2, "duplicate_paragraphs": 1, "docs_dropped": 1, "docs_out": 1}
    return MinimalCase(
        input={"docs": docs, "bloom_bytes_per_item": 10},
        expected={"output": docs[:1], **({"stats": counts} if stats else {})},
        got={"output": docs[1:], **({"stats": counts} if stats else {})},
        differences=[
            f"document 'd1': expected {text!r}, missing from the output",
            "document 'd2': expected to be dropped",
        ],
        documents=2,
        characters=2 * len(text),
        shrunk=True,
        tries=15,
        origin={"documents": 3, "characters": 64},
    )


def keeps_last_report(name: str = "kim/dedup.py") -> GradeReport:
    """Loses checks 1, 2 and 4 by assertion, each shrunk to the same case: one case shown, two named."""
    lost = (CHECKS[0], CHECKS[1], CHECKS[3])
    return report(
        dict.fromkeys(lost, Outcome.FAILED),
        {check: [case(check, Outcome.FAILED, f"{check} saw the last copy kept")] for check in lost},
        name=name,
        minimal_cases=dict.fromkeys(lost, keeps_last_case()),
        protections=PROTECTIONS,
    )


# What a hostile submission can put in a report: every C0 control, DEL, C1, a lone surrogate, a
# right-to-left override, an escape sequence that clears the screen and retitles the window, and a
# line of a million characters.
CONTROLS = "".join(map(chr, range(0x20))) + "\x7f\x85\x9b"
NASTY = f"\x1b[2J\x1b]0;pwned\x07{CONTROLS}\ud800\udfff\u202eevil"
MEGABYTE = "=HYPERLINK(" + "x" * 1_000_000


def hostile_report(name: str = f"=cmd|' /C calc'!A0{NASTY}/dedup.py") -> GradeReport:
    """A report whose every submission-controlled text is hostile: name, messages, a shrunk case, stats values,
    what it printed, the attempts it made the worker report, and the protections record it came with."""
    crash = f"ValueError: {NASTY}\nattempt: tried nothing (forged)\n{MEGABYTE}"
    hostile_case = keeps_last_case(NASTY)
    hostile_case.got["stats"] = {**hostile_case.got["stats"], "docs_in": NASTY}
    return report(
        {CHECKS[0]: Outcome.FAILED, CHECKS[11]: Outcome.ERROR},
        {
            CHECKS[0]: [case(CHECKS[0], Outcome.FAILED, f"expected {NASTY!r}, got {MEGABYTE}")],
            CHECKS[11]: [case(CHECKS[11], Outcome.ERROR, crash)],
        },
        name=name,
        problems=[f"import: {NASTY}", MEGABYTE],
        attempts=[f"tried to read /tmp/{NASTY} (refused) ({CHECKS[0]})", f"-{MEGABYTE}"],
        student_output=f"{NASTY}\n{MEGABYTE}",
        minimal_cases={CHECKS[0]: hostile_case},
        protections={**PROTECTIONS, "notes": [NASTY]},
    )
