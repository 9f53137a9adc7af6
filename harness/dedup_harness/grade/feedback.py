"""Feedback on one check: the cases it lost as data, and the plain words every report renders from them.

A ``LostCase`` is one failing case as the judge and the outcome recorder gave it, field by field; a
``CheckFeedback`` holds a check's lost cases, what the worker did during it, its minimal case and the
categories of what the grader refused that it crashed on (said first: ``rules``). Reports format
these fields and never read one back out of the words. Everything run-specific (scratch paths,
memory addresses, uids) is scrubbed as a case is read: the same submission gets the same words.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dedup_harness.core.checks import BY_NAME
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade import rules
from dedup_harness.grade.minimize import look_alike
from dedup_harness.grade.minimize.case import MinimalCase
from dedup_harness.grade.minimize.text import case_text, cut, input_rows, same_case_text, wrapped
from dedup_harness.grade.worker.categories import CATEGORIES

MESSAGE_LIMIT = 600  # characters of one case's message
CASES_SHOWN = 3  # failing cases spelled out per check
# A check that lost only on cases its course holds back (core/hidden_cases.py), as its student is told.
HELD_BACK = "It passes the cases `check` runs; it fails on cases your course holds back."
HELD_BACK_TOO = "It fails on cases your course holds back too."
HELD_BACK_LABEL = "[held back] "  # before each of those cases, where staff read them

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# The grader's own scratch folders (tempfile names with the harness's prefixes), wherever they sit. A match
# starts only where a path can (the lookbehind): without it a long word that holds no scratch folder is
# tried from each of its characters, and a message of a million characters takes hours.
_SCRATCH = re.compile(r"(?<![^\s'\"])[^\s'\"]*dedup-harness-[a-z]+-(?:\d+\.\d+-)?[a-z0-9_]{8}")
# The sandbox gives each grader process its own worker uid: a per-run number.
_UID = re.compile(r"\buid \d+")


def scrub(text: str) -> str:
    """``text`` without what differs between two runs of the same grade: scratch paths, memory addresses, uids."""
    return _UID.sub("uid <per run>", _SCRATCH.sub("<scratch>", _ADDRESS.sub("", text)))


@dataclass(frozen=True)
class LostCase:
    """One case a check lost: every field a report shows of it."""

    case_id: str  # pytest's id of the parametrized case ("" for a check of one case)
    outcome: Outcome
    held_back: bool = False  # one of the cases its course holds back
    input: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # what it tried ({}: too large to keep)
    expected: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    got: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    differences: tuple[str, ...] = ()  # the judge's sentences (none for a crash, a hang or a plain assert)
    error: str = ""  # the type of what it crashed with, or of the assertion
    message: str = ""  # that exception's text
    raised: str = ""  # the type the code under test raised behind it (``rules`` reads it)
    site: str = ""  # where in the student's code it crashed ("dedup.py line 40, in _spool")

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> LostCase:
        """A case as the outcome recorder wrote it (``core/outcome_recorder.CaseRecord``), scrubbed."""
        found = record.get("verdict")
        verdict: Mapping[str, Any] = found if type(found) is dict else {}
        return cls(
            case_id=str(record.get("case_id", "")),
            outcome=Outcome(record.get("outcome", Outcome.ERROR)),
            held_back=bool(record.get("held_back")),
            input=record.get("input") or {},
            expected=verdict.get("expected", {}),
            got=verdict.get("got", {}),
            differences=tuple(scrub(str(d)) for d in verdict.get("differences", [])),
            error=str(record.get("error", "")),
            message=scrub(str(record.get("message", ""))).strip(),
            raised=str(record.get("raised", "")),
            site=str(record.get("site", "")),
        )

    @property
    def crash(self) -> str:
        """What it crashed with, on one line: the exception's type and its text ("" for no crash)."""
        if self.outcome is not Outcome.ERROR or not (self.error or self.message):
            return ""
        return one_line(f"{self.error}: {self.message}" if self.message else self.error)

    def words(self) -> str:
        """Its failure in words: the verdict's differences, or what crashed or hung (with where), then the texts
        that look alike but differ, by their code points."""
        if self.outcome is Outcome.TIMEOUT:
            return "it ran past its time limit (a hang, or far too slow)."
        if self.outcome is Outcome.ERROR:
            if not self.crash:
                return "it crashed without a message."
            site = f" (at {self.site})" if self.site else ""  # kept whole however long the message
            return truncate(f"it crashed: {self.crash}", MESSAGE_LIMIT - len(site)) + site
        said = "; ".join(self.differences) or self.message or "an assertion failed"
        alike = look_alike.verdict_notes(dict(self.expected), dict(self.got)) if self.differences else []
        said = truncate(one_line(said), MESSAGE_LIMIT)
        return f"{said} ({'; '.join(alike)})" if alike else said

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "outcome": str(self.outcome), "input": dict(self.input)}


@dataclass(frozen=True)
class Said:
    """What the worker did during a check (a fault, a note): its kind and one line of words."""

    kind: str
    detail: str
    held_back: bool = False  # in the held-back run's worker: for staff alone

    def words(self) -> str:
        return one_line(scrub(f"{self.kind}: {self.detail}"))


@dataclass(frozen=True)
class CheckFeedback:
    """Why one check lost its points: its lost cases (the public ones first) and what else the report says of it."""

    asserts: str
    outcome: Outcome
    cases: tuple[LostCase, ...] = ()
    events: tuple[Said, ...] = ()
    minimal_case: MinimalCase | None = None  # the smallest input that still fails it, with both answers
    refusals: tuple[str, ...] = ()  # the categories of what the grader refused that it crashed on
    reason: str = ""  # why it did not run at all, when no case could (the submission cannot be graded)
    held_back_hidden: bool = False  # the students' view: it lost cases the course holds back, not shown here

    @property
    def refused(self) -> tuple[str, ...]:
        """What the grader refused that it crashed on, one sentence each: said first."""
        return tuple(rules.SENTENCES[category] for category in self.refusals)

    @property
    def held_back(self) -> bool:
        """Every case it lost is one its course holds back."""
        return bool(self.cases) and all(case.held_back for case in self.cases)

    @property
    def problems(self) -> tuple[str, ...]:
        """What went wrong, a line each: at most CASES_SHOWN cases (one beside a minimal case), then the events."""
        if self.held_back_hidden and not self.cases:
            return (HELD_BACK,)
        shown = 1 if self.minimal_case is not None else CASES_SHOWN
        lines = [f"{HELD_BACK_LABEL if c.held_back else ''}{_label(c)}{c.words()}" for c in self.cases[:shown]]
        if len(self.cases) > shown:
            lines.append(f"... and {len(self.cases) - shown} more failing cases of this check.")
        lines += [event.words() for event in self.events]
        lines += [HELD_BACK_TOO] if self.held_back_hidden else []
        return tuple(lines) or (self.reason or _no_cases(self.outcome),)

    @property
    def headline(self) -> str:
        """The first thing that went wrong, as a report's headline quotes it (a crash: its error)."""
        first = self.cases[0].crash if self.cases else ""
        return truncate(first, MESSAGE_LIMIT) if first else self.problems[0]

    @property
    def crashed_with(self) -> str:
        """The type of the error its first lost case crashed with, if it crashed."""
        return self.cases[0].error if self.cases and self.cases[0].crash else ""

    @property
    def lines(self) -> tuple[str, ...]:
        """What went wrong, a line each: the refusals first, then the problems."""
        return self.refused + self.problems

    def for_students(self) -> CheckFeedback:
        """What a student may read before the due date: no case the course holds back, nothing its worker did,
        and a sentence saying that the check lost such cases."""
        public = tuple(case for case in self.cases if not case.held_back)
        events = tuple(event for event in self.events if not event.held_back)
        hidden = self.minimal_case is not None and self.minimal_case.held_back
        if len(public) == len(self.cases) and len(events) == len(self.events) and not hidden:
            return self
        minimal = None if hidden else self.minimal_case
        return dataclasses.replace(self, cases=public, events=events, minimal_case=minimal, held_back_hidden=True)

    def text(self, *, same_case_as: int | None = None, width: int | None = None) -> str:
        """The feedback in words; ``same_case_as`` names the earlier check whose minimal case is this one's;
        ``width`` the characters a line may take (the terminal's; None: no limit, for pages that wrap)."""
        said = (*self.refused, f"This check asserts: {self.asserts}.")
        lines = [line for sentence in said for line in wrapped(sentence, width)]
        if self.held_back:  # staff's view of a check lost on held-back cases alone: the sentence, then the cases
            lines += wrapped(HELD_BACK, width)
        lines += [line for problem in self.problems for line in wrapped(problem, width, "  ")]
        if self.minimal_case is not None:
            lines.append(same_case_text(same_case_as) if same_case_as else case_text(self.minimal_case, width))
        elif self.cases and self.cases[0].input:
            lines.append("The failing input:")
            lines += [cut(f"  {label}: {value}", width) for label, value in input_rows(dict(self.cases[0].input))]
        return "\n".join(lines)


def check_feedback(
    name: str,
    outcome: Outcome,
    records: Sequence[Mapping[str, Any]],
    *,
    events: Iterable[Said] = (),
    minimal_case: MinimalCase | None = None,
    refused: Sequence[str] = (),
) -> CheckFeedback | None:
    """Feedback for a check that lost its points; None when it passed. ``records``: its cases as the outcome
    recorder wrote them; ``refused``: the categories of the rules its worker's refusals met
    (``events.EventLog.refused``)."""
    if outcome is Outcome.PASSED:
        return None
    lost = sorted((LostCase.of(r) for r in records if r.get("outcome") != Outcome.PASSED), key=lambda c: c.held_back)
    public = {case.words() for case in lost if not case.held_back}
    lost = [case for case in lost if not (case.held_back and case.words() in public)]  # the same failure again
    refusals = crashed_on(refused, lost)
    return CheckFeedback(asserts(name), outcome, tuple(lost), tuple(events), minimal_case, refusals)


def crashed_on(refused: Sequence[str], cases: Sequence[LostCase]) -> tuple[str, ...]:
    """The categories ``refused`` of one check's worker, in the order they are said, when one of its ``cases``
    crashed with the error a refusal raises (a type the grader rebuilds, never words the submission wrote)."""
    if not any(case.outcome is Outcome.ERROR and case.raised == rules.REFUSAL_RAISES for case in cases):
        return ()
    return tuple(category for category in CATEGORIES if category in refused)


def asserts(name: str) -> str:
    """What the check asserts, in words (its name, for a check outside the registry)."""
    return BY_NAME[name].asserts if name in BY_NAME else name


def _label(case: LostCase) -> str:
    return f"[{case.case_id}] " if case.case_id else ""


def one_line(text: str) -> str:
    """A problem is one line: line breaks in what the submission raised are written out, so no line of its
    message can pass for a line of the report ("attempt: ..." forged under a crash)."""
    return text.replace("\r\n", "\\n").replace("\n", "\\n")


def _no_cases(outcome: Outcome) -> str:
    if outcome is Outcome.TIMEOUT:
        return "The whole run ran past its time limit before this check finished."
    return "The check could not run (the submission broke before it; see the problems above)."


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
