"""Feedback on one check in plain words: what it asserts, what went wrong, the smallest failing input.

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

from dedup_harness.outcome import Outcome

# What each check asserts, for a student reading a report (SPEC 5, reworded for students).
ASSERTS: dict[str, str] = {
    "test_hand_example_three_documents": "the chapter's worked example: A unchanged, B becomes 'A bird sang.', "
    "C dropped, every stat as in the chapter",
    "test_fixture_duplicate_counts": "on the 200-document fixture: the paragraph, repeat and dropped counts and the "
    "exact text of every kept document",
    "test_zero_false_drops_with_a_tiny_filter": "with a tiny, error-prone filter (B=0.25) no unique paragraph is lost; "
    "candidates = repeated paragraphs + false positives",
    "test_random_corpora_match_the_set_oracle": "on random corpora at B = 0.1, 1 and 10 the output and counts equal "
    "the set oracle's",
    "test_paragraph_split_rules": "paragraphs split on blank lines (empty or spaces and tabs only, \\n or \\r\\n), "
    "pieces stripped, empty pieces skipped",
    "test_a_repeat_inside_one_document_is_removed": "a paragraph repeated inside one document is removed, and the "
    "document stays",
    "test_untouched_documents_keep_their_exact_text": "a document that loses nothing comes back exactly as it was: "
    "text, line breaks, spaces and meta",
    "test_bloom_is_sized_from_bytes_per_item": "bloom_rate(B) = exp(-8B (ln 2)**2) and the filter holds about 8BN bits "
    "for N paragraphs; bad B is a ValueError",
    "test_false_positives_stay_within_the_budget": "the filter's false positives stay within what its sizing promises",
    "test_stats_name_every_key": "every STATS_KEYS entry is filled with a whole number once the output is exhausted, "
    "also for empty input",
    "test_the_spool_is_removed": "nothing is left under spool_dir after a full read, an early close() or an exception "
    "from the input",
    "test_exact_dedup_is_a_stage": "exact_dedup composes like any stage; a partial document's paragraphs are joined "
    "by a blank line",
}

MESSAGE_LIMIT = 600  # characters of one case's message
EXAMPLE_LIMIT = 1500  # characters of a shrunk example
CASES_SHOWN = 3  # failing cases spelled out per check
DETAIL_LINES = 3  # lines of pytest's comparison kept after a check's own message
# pytest's comparison lines that say nothing about the values.
_NOISE = ("Use -v", "Full diff", "Omitting", "...Full output", "-", "+")

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# The grader's own scratch folders (tempfile names with the harness's prefixes), wherever they sit.
_SCRATCH = re.compile(r"[^\s'\"]*dedup-harness-[a-z]+-[a-z0-9_]{8}")
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

    def text(self) -> str:
        lines = [f"This check asserts: {self.asserts}."]
        lines += self.problems
        if self.smallest_input:
            lines += ["Smallest failing input:", self.smallest_input]
        return "\n".join(lines)


class Scrubber:
    """Removes what differs between two runs of the same grade: scratch paths and memory addresses."""

    def __init__(self, replacements: Mapping[str, str]) -> None:
        # Longest first, so a path is replaced before any folder that contains it.
        self.replacements = sorted(replacements.items(), key=lambda item: -len(item[0]))

    def __call__(self, text: str) -> str:
        for old, new in self.replacements:
            if old:
                text = text.replace(old, new)
        return _UID.sub("uid <per run>", _SCRATCH.sub("<scratch>", _ADDRESS.sub("", text)))


def check_feedback(
    name: str,
    outcome: Outcome,
    cases: Sequence[Mapping[str, Any]],
    *,
    scrub: Scrubber,
    events: Iterable[str] = (),
) -> CheckFeedback | None:
    """Feedback for a check that lost its points; None when it passed."""
    if outcome is Outcome.PASSED:
        return None
    bad = [case for case in cases if case.get("outcome") != Outcome.PASSED]
    problems = [f"{_case_label(case)}{_plain(case, scrub)}" for case in bad[:CASES_SHOWN]]
    if len(bad) > CASES_SHOWN:
        problems.append(f"... and {len(bad) - CASES_SHOWN} more failing cases of this check.")
    problems += [scrub(event) for event in events]
    if not problems:
        problems = [_no_cases(outcome)]
    example = next((case["falsifying"] for case in bad if case.get("falsifying")), "")
    return CheckFeedback(ASSERTS.get(name, name), tuple(problems), smallest_input(example, scrub))


def _case_label(case: Mapping[str, Any]) -> str:
    match = _CASE_ID.search(str(case.get("nodeid", "")))
    return f"[{match.group(1)}] " if match else ""


def _plain(case: Mapping[str, Any], scrub: Scrubber) -> str:
    """One case's failure in words: the assertion's own message, or what crashed or hung."""
    message = scrub(str(case.get("message", ""))).strip()
    outcome = case.get("outcome")
    if outcome == Outcome.TIMEOUT:
        return "it ran past its time limit (a hang, or far too slow)."
    kind, _, rest = message.partition(": ")
    if outcome == Outcome.FAILED and kind == "AssertionError":
        return _truncate(_assertion_words(rest), MESSAGE_LIMIT)
    if not message:
        return "it crashed without a message."
    return _truncate(f"it crashed: {message}", MESSAGE_LIMIT)


def _assertion_words(text: str) -> str:
    """The message the check wrote, then the lines of pytest's comparison that say what differed."""
    if text.startswith("assert "):
        text = "\n" + text  # no message: only the comparison
    head, _, comparison = text.partition("\nassert ")
    words = " ".join(line.strip() for line in head.splitlines() if line.strip())
    first, *rest = comparison.splitlines() or [""]
    details = [line.strip() for line in rest if _informative(line)][:DETAIL_LINES]
    if not words:
        words = f"expected {first}" if first else "an assertion failed"
    return f"{words} (details: {'; '.join(details)})" if details else words


def _informative(line: str) -> bool:
    line = line.strip()
    return bool(line) and not line.startswith(_NOISE)


def smallest_input(notes: str, scrub: Scrubber) -> str:
    """Hypothesis's shrunk example, without the fixtures it passed along and without addresses."""
    if not notes:
        return ""
    kept = [line for line in scrub(notes).splitlines() if not _FIXTURE_ARGUMENT.match(line)]
    return _truncate("\n".join(kept).strip(), EXAMPLE_LIMIT)


def _no_cases(outcome: Outcome) -> str:
    if outcome is Outcome.TIMEOUT:
        return "The whole run ran past its time limit before this check finished."
    return "The check could not run (the submission broke before it; see the problems above)."


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
