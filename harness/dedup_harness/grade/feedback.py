"""Feedback on one check in plain words: what it asserts, what went wrong, the smallest failing input.

A check that crashed on something the grader refuses says so first (``refused_words``).

The words come from the check's own assertion messages (the suite writes them for people), without
pytest's introspection of the values, and from the notes Hypothesis attaches to a shrunk example.
Everything run-specific (scratch paths, memory addresses) is scrubbed so that grading the same
submission twice gives the same text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dedup_harness.core.checks import BY_NAME
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade import refused_words
from dedup_harness.grade.minimize import look_alike
from dedup_harness.grade.minimize.case import MinimalCase
from dedup_harness.grade.minimize.text import case_text, same_case_text

MESSAGE_LIMIT = 600  # characters of one case's message
CRASHED = "it crashed: "  # how a case that raised begins
EXAMPLE_LIMIT = 1500  # characters of a shrunk example
CASES_SHOWN = 3  # failing cases spelled out per check
DETAIL_LINES = 3  # lines of pytest's comparison kept after a check's own message
# pytest's comparison lines that say nothing about the values.
_NOISE = ("Use -v", "Full diff", "Omitting", "...Full output", "-", "+")

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# The grader's own scratch folders (tempfile names with the harness's prefixes), wherever they sit. A match
# starts only where a path can (the lookbehind): without it a long word that holds no scratch folder is
# tried from each of its characters, and a message of a million characters takes hours.
_SCRATCH = re.compile(r"(?<![^\s'\"])[^\s'\"]*dedup-harness-[a-z]+-(?:\d+\.\d+-)?[a-z0-9_]{8}")
# The sandbox gives each grader process its own worker uid: a per-run number.
_UID = re.compile(r"\buid \d+")
_FIXTURE_ARGUMENT = re.compile(r"^\s*(run|impl|tmp_path|fixture_docs|fixture_expected)=.*,?$")
_CASE_ID = re.compile(r"\[(.*)\]$")


@dataclass(frozen=True)
class CheckFeedback:
    """Why one check lost its points, in words a student can act on."""

    asserts: str
    problems: tuple[str, ...]  # one line per failing case (at most CASES_SHOWN, then a count)
    smallest_input: str  # Hypothesis's shrunk example, when the check found one
    minimal_case: MinimalCase | None = None  # the smallest input that still fails it, with both answers
    refused: tuple[str, ...] = ()  # what the grader refused that it crashed on, one sentence each: said first

    @property
    def lines(self) -> tuple[str, ...]:
        """What went wrong, a line each: the refusals first, then the problems."""
        return self.refused + self.problems

    def text(self, *, same_case_as: int | None = None) -> str:
        """The feedback in words; ``same_case_as`` names the earlier check whose minimal case is this one's."""
        lines = [*self.refused, f"This check asserts: {self.asserts}."]
        lines += self.problems
        if self.minimal_case is not None:
            lines.append(same_case_text(same_case_as) if same_case_as else case_text(self.minimal_case))
        elif self.smallest_input:
            lines += ["Smallest failing input:", self.smallest_input]
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
    bad = [case for case in cases if case.get("outcome") != Outcome.PASSED]
    shown = 1 if minimal_case is not None else CASES_SHOWN  # the minimal case says the rest more plainly
    problems = [f"{_case_label(case)}{_plain(case)}" for case in bad[:shown]]
    if len(bad) > shown:
        problems.append(f"... and {len(bad) - shown} more failing cases of this check.")
    problems += [_one_line(scrub(event)) for event in events]
    if not problems:
        problems = [_no_cases(outcome)]
    example = next((case["falsifying"] for case in bad if case.get("falsifying")), "")
    said = refused_words.sentences(refused, bad)
    return CheckFeedback(asserts(name), tuple(problems), smallest_input(example), minimal_case, said)


def asserts(name: str) -> str:
    """What the check asserts, in words (its name, for a check outside the registry)."""
    return BY_NAME[name].asserts if name in BY_NAME else name


def _case_label(case: Mapping[str, Any]) -> str:
    match = _CASE_ID.search(str(case.get("nodeid", "")))
    return f"[{match.group(1)}] " if match else ""


def _plain(case: Mapping[str, Any]) -> str:
    """One case's failure in words: the assertion's own message, or what crashed or hung; then the texts it
    quotes that look alike but differ, by their code points (kept whole however long the message)."""
    message = scrub(str(case.get("message", ""))).strip()
    outcome = case.get("outcome")
    if outcome == Outcome.TIMEOUT:
        return "it ran past its time limit (a hang, or far too slow)."
    kind, _, rest = message.partition(": ")
    if outcome == Outcome.FAILED and kind == "AssertionError":
        words = _truncate(_assertion_words(rest), MESSAGE_LIMIT)
    elif not message:
        return "it crashed without a message."
    else:
        site = at_site(message, str(case.get("site", "")))  # kept whole however long the message
        words = _truncate(f"{CRASHED}{_one_line(message)}", MESSAGE_LIMIT - len(site)) + site
    alike = look_alike.message_notes(message)
    return f"{words} ({'; '.join(alike)})" if alike else words


def at_site(message: str, site: str) -> str:
    """Where in the student's code a case crashed, " (at dedup.py line 40, in _spool)", unless the message says it
    already (the grader's rebuilt errors carry it in their text); "" when nobody knows."""
    return f" (at {site})" if site and f"(at {site})" not in message else ""


def _one_line(text: str) -> str:
    """A problem is one line: line breaks in what the submission raised are written out, so no line of its
    message can pass for a line of the report ("attempt: ..." forged under a crash)."""
    return text.replace("\r\n", "\\n").replace("\n", "\\n")


def _assertion_words(text: str) -> str:
    """The message the check wrote (it says what was expected and what came back); without one, the
    lines of pytest's comparison that say what differed."""
    if text.startswith("assert "):
        text = "\n" + text  # no message: only the comparison
    head, _, comparison = text.partition("\nassert ")
    words = " ".join(line.strip() for line in head.splitlines() if line.strip())
    if words:
        return words
    first, *rest = comparison.splitlines() or [""]
    details = [line.strip() for line in rest if _informative(line)][:DETAIL_LINES]
    words = f"expected {first}" if first else "an assertion failed"
    return f"{words} ({'; '.join(details)})" if details else words


def _informative(line: str) -> bool:
    line = line.strip()
    return bool(line) and not line.startswith(_NOISE)


def smallest_input(notes: str) -> str:
    """Hypothesis's shrunk example, without the fixtures it passed along, without addresses, and without
    its explanation (which lists the lines of the grader's own files that ran: paths of this machine)."""
    if not notes:
        return ""
    notes = notes.split("\nExplanation:")[0]
    kept = [line for line in scrub(notes).splitlines() if not _FIXTURE_ARGUMENT.match(line)]
    return _truncate("\n".join(kept).strip(), EXAMPLE_LIMIT)


def _no_cases(outcome: Outcome) -> str:
    if outcome is Outcome.TIMEOUT:
        return "The whole run ran past its time limit before this check finished."
    return "The check could not run (the submission broke before it; see the problems above)."


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
