"""Feedback on one check in plain words: what it asserts, what went wrong, the smallest failing input.

A check that crashed on something the grader refuses says so first (``refused_words``).

The words come from what the outcome recorder kept of each case, field by field: a failing verdict's
differences (the judges write them for people), or the type and text of what crashed; and from the
notes Hypothesis attaches to a shrunk example. Everything run-specific (scratch paths, memory
addresses) is scrubbed so that grading the same submission twice gives the same text.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dedup_harness.core.checks import BY_NAME
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade import refused_words
from dedup_harness.grade.minimize import look_alike
from dedup_harness.grade.minimize.case import MinimalCase
from dedup_harness.grade.minimize.text import case_text, cut, same_case_text, wrapped

MESSAGE_LIMIT = 600  # characters of one case's message
CRASHED = "it crashed: "  # how a case that raised begins
EXAMPLE_LIMIT = 1500  # characters of a shrunk example
CASES_SHOWN = 3  # failing cases spelled out per check
# A check that lost only on cases its course holds back (core/hidden_cases.py), as its student is told.
HELD_BACK = "It passes the cases `check` runs; it fails on cases your course holds back."
HELD_BACK_LABEL = "[held back] "  # before each of those cases, where staff read them

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# The grader's own scratch folders (tempfile names with the harness's prefixes), wherever they sit. A match
# starts only where a path can (the lookbehind): without it a long word that holds no scratch folder is
# tried from each of its characters, and a message of a million characters takes hours.
_SCRATCH = re.compile(r"(?<![^\s'\"])[^\s'\"]*dedup-harness-[a-z]+-(?:\d+\.\d+-)?[a-z0-9_]{8}")
# The sandbox gives each grader process its own worker uid: a per-run number.
_UID = re.compile(r"\buid \d+")
# What Hypothesis's note says of a failing example besides its inputs: the test's own fixtures, and the
# heading, the closing parenthesis and the hints that follow ("use Verbosity.verbose", @reproduce_failure).
_FIXTURE_ARGUMENT = re.compile(r"^\s*(judge|cases|run|impl|tmp_path|fixture_docs|fixture_expected)=.*,?$")
_EXAMPLE_HEADING = re.compile(r"^(Falsifying example|Failing test case)[^(]*\(\s*$")
_CASE_ID = re.compile(r"\[(.*)\]$")
_RUN_ID = re.compile(r"^(public|held-back)(-|$)")  # core/hidden_cases.Cases's ids, first in a case's id


@dataclass(frozen=True)
class CheckFeedback:
    """Why one check lost its points, in words a student can act on."""

    asserts: str
    problems: tuple[str, ...]  # one line per failing case (at most CASES_SHOWN, then a count)
    smallest_input: str  # Hypothesis's shrunk example, when the check found one
    minimal_case: MinimalCase | None = None  # the smallest input that still fails it, with both answers
    refused: tuple[str, ...] = ()  # what the grader refused that it crashed on, one sentence each: said first
    headline: str = ""  # the first thing that went wrong, as a report's headline quotes it (a crash: its error)
    refusals: tuple[str, ...] = ()  # the categories of what the grader refused that it crashed on (``refused``'s)
    crashed_with: str = ""  # the type of the error its first failing case crashed with, if it crashed
    held_back: bool = False  # every case it failed is one its course holds back

    def for_students(self) -> CheckFeedback:
        """What a student may read before the due date: no case the course holds back, and, when those are all
        it failed, the sentence saying so in place of the cases."""
        public = tuple(line for line in self.problems if not line.startswith(HELD_BACK_LABEL))
        hidden = self.minimal_case is not None and self.minimal_case.held_back
        if not self.held_back and not hidden and public == self.problems:
            return self
        problems = (HELD_BACK,) if self.held_back else (*public, "It fails on cases your course holds back too.")
        headline = HELD_BACK if self.held_back else self.headline
        return dataclasses.replace(
            self, problems=problems, smallest_input="" if self.held_back else self.smallest_input,
            minimal_case=None if hidden else self.minimal_case, headline=headline,
        )  # fmt: skip

    @property
    def lines(self) -> tuple[str, ...]:
        """What went wrong, a line each: the refusals first, then the problems."""
        return self.refused + self.problems

    def text(self, *, same_case_as: int | None = None, width: int | None = None) -> str:
        """The feedback in words; ``same_case_as`` names the earlier check whose minimal case is this one's;
        ``width`` the characters a line may take (the terminal's; None: no limit, for pages that wrap)."""
        lines = [
            line for said in (*self.refused, f"This check asserts: {self.asserts}.") for line in wrapped(said, width)
        ]
        if self.held_back and self.problems != (HELD_BACK,):  # staff's view: the sentence, then the cases
            lines += wrapped(HELD_BACK, width)
        lines += [line for problem in self.problems for line in wrapped(problem, width, "  ")]
        if self.minimal_case is not None:
            lines.append(same_case_text(same_case_as) if same_case_as else case_text(self.minimal_case, width))
        elif self.smallest_input:
            lines += ["Smallest failing input:", *(cut(line, width) for line in self.smallest_input.splitlines())]
        return "\n".join(lines)


def scrub(text: str) -> str:
    """``text`` without what differs between two runs of the same grade: scratch paths, memory addresses, uids."""
    return _UID.sub("uid <per run>", _SCRATCH.sub("<scratch>", _ADDRESS.sub("", text)))


def check_feedback(
    name: str,
    outcome: Outcome,
    cases: Sequence[Mapping[str, Any]],
    *,
    events: Iterable[str] = (),
    minimal_case: MinimalCase | None = None,
    refused: Sequence[str] = (),
) -> CheckFeedback | None:
    """Feedback for a check that lost its points; None when it passed. ``refused``: the categories of the rules
    its worker's refusals met (``faults.EventLog.refused``)."""
    if outcome is Outcome.PASSED:
        return None
    bad = sorted((case for case in cases if case.get("outcome") != Outcome.PASSED), key=_held_back)  # public first
    public = {_plain(case) for case in bad if not _held_back(case)}
    bad = [case for case in bad if not (_held_back(case) and _plain(case) in public)]  # the same failure again
    shown = 1 if minimal_case is not None else CASES_SHOWN  # the minimal case says the rest more plainly
    problems = [
        f"{HELD_BACK_LABEL if _held_back(case) else ''}{_case_label(case)}{_plain(case)}" for case in bad[:shown]
    ]
    crashed = crash_words(bad[0]) if bad and bad[0].get("outcome") == Outcome.ERROR else ""
    crashed = _truncate(crashed, MESSAGE_LIMIT)
    if len(bad) > shown:
        problems.append(f"... and {len(bad) - shown} more failing cases of this check.")
    problems += [_one_line(scrub(event)) for event in events]
    if not problems:
        problems = [_no_cases(outcome)]
    example = next((case["falsifying"] for case in bad if case.get("falsifying")), "")
    refusals = refused_words.crashed_on(refused, bad)
    said = tuple(refused_words.SENTENCES[category] for category in refusals)
    headline = crashed or problems[0]
    error = str(bad[0].get("error", "")) if crashed else ""
    held_back = bool(bad) and all(map(_held_back, bad))
    return CheckFeedback(
        asserts(name),
        tuple(problems),
        smallest_input(example),
        minimal_case,
        said,
        headline,
        refusals,
        error,
        held_back,
    )


def _held_back(case: Mapping[str, Any]) -> bool:
    return bool(case.get("held_back"))


def asserts(name: str) -> str:
    """What the check asserts, in words (its name, for a check outside the registry)."""
    return BY_NAME[name].asserts if name in BY_NAME else name


def _case_label(case: Mapping[str, Any]) -> str:
    """The case's own id, as ``check`` shows it: without the public or held-back run it came from (said apart)."""
    match = _CASE_ID.search(str(case.get("nodeid", "")))
    own = _RUN_ID.sub("", match.group(1)) if match else ""
    return f"[{own}] " if own else ""


def _plain(case: Mapping[str, Any]) -> str:
    """One case's failure in words: the verdict's differences, or what crashed or hung; then the texts that
    look alike but differ, by their code points (kept whole however long the words)."""
    if case.get("outcome") == Outcome.TIMEOUT:
        return "it ran past its time limit (a hang, or far too slow)."
    verdict = case.get("verdict")
    if type(verdict) is dict and verdict.get("differences"):
        words = scrub("; ".join(map(str, verdict["differences"])))
        alike = look_alike.verdict_notes(verdict.get("expected", {}), verdict.get("got", {}))
    elif case.get("outcome") == Outcome.FAILED:  # an assertion of the check's own, outside any judge
        words, alike = scrub(str(case.get("message", ""))).strip() or "an assertion failed", []
    else:
        crash = crash_words(case)
        if not crash:
            return "it crashed without a message."
        site = at_site(crash, str(case.get("site", "")))  # kept whole however long the message
        return _truncate(f"{CRASHED}{crash}", MESSAGE_LIMIT - len(site)) + site
    words = _truncate(_one_line(words), MESSAGE_LIMIT)
    return f"{words} ({'; '.join(alike)})" if alike else words


def crash_words(case: Mapping[str, Any]) -> str:
    """What a case crashed with, on one line: the exception's type and its text ("" when it says nothing)."""
    error, message = str(case.get("error", "")), scrub(str(case.get("message", ""))).strip()
    if not error and not message:
        return ""
    return _one_line(f"{error}: {message}" if message else error)


def at_site(message: str, site: str) -> str:
    """Where in the student's code a case crashed, " (at dedup.py line 40, in _spool)", unless the message says it
    already (the grader's rebuilt errors carry it in their text); "" when nobody knows."""
    return f" (at {site})" if site and f"(at {site})" not in message else ""


def _one_line(text: str) -> str:
    """A problem is one line: line breaks in what the submission raised are written out, so no line of its
    message can pass for a line of the report ("attempt: ..." forged under a crash)."""
    return text.replace("\r\n", "\\n").replace("\n", "\\n")


def smallest_input(notes: str) -> str:
    """Hypothesis's example as its inputs only (``records=[...]``), a line each: no heading naming the test, no
    fixture it passed along, no address, and none of the explanation or hints that follow (the explanation
    lists lines of the grader's own files: paths of this machine)."""
    lines = scrub(notes.split("\nExplanation:")[0]).splitlines()
    start = next((i + 1 for i, line in enumerate(lines) if _EXAMPLE_HEADING.match(line)), None)
    if start is None:
        return ""
    kept: list[str] = []
    for line in lines[start:]:
        if line.strip() == ")":
            break
        if not _FIXTURE_ARGUMENT.match(line):
            kept.append(line.strip().removesuffix(","))
    return _truncate("\n".join(kept), EXAMPLE_LIMIT)


def _no_cases(outcome: Outcome) -> str:
    if outcome is Outcome.TIMEOUT:
        return "The whole run ran past its time limit before this check finished."
    return "The check could not run (the submission broke before it; see the problems above)."


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
