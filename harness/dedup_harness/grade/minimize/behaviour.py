"""Which mutants behave like the submission on its own minimal failing inputs: the evidence a pitfall needs.

A kill set says two programs fail the same checks, not that they share a bug: a stage that drops every
copy of a paragraph repeated inside a document, the first too, fails exactly s02's checks. So each
mutant runs on the very inputs the submission failed, under the same judges, and matches only where
it fails there too, agrees with the submission in what the check found wrong (the output, or the stat
that differed), and answers otherwise than the reference. What the submission got right is not
compared: a stat no failing check faulted never vetoes a match.

Mutants are the course's code: they run here, each from a root built in scratch
(``core/mutant_roots.py``) under its own ``corpus`` (``core.reference.stage_of``). A check that
measures (memory) has no smaller input; there the kill set says whether the mutant fails it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dedup_harness.core import reference
from dedup_harness.core.catalogue import Mutant, load_catalogue
from dedup_harness.core.checks import BY_NAME
from dedup_harness.core.judges import JUDGES, Subject
from dedup_harness.core.kill_matrix import load_kill_sets
from dedup_harness.core.mutant_roots import DiffDoesNotApply, mutant_root
from dedup_harness.core.paths import REFERENCE_SOURCE

Observation = tuple[str, Any]  # ("fails", what came back), ("passes", ...), or ("raises", the error's type)


@dataclass(frozen=True)
class FailedCase:
    """A check the submission failed by an assertion, the smallest input found, what was expected there and what
    the submission answered."""

    check: str
    inputs: dict[str, Any] | None  # None: the check's input cannot be made smaller (it measures)
    got: Any
    expected: Any = None

    def faulted(self) -> dict[tuple[str, ...], Any]:
        """What the check found wrong in the submission's answer: each differing part of it, by its path."""
        return differing(self.expected, self.got)


MISSING = object()  # the side of a verdict that has no such part


def differing(expected: Any, got: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    """The parts of ``got`` that differ from ``expected``, by path: dicts part by part, anything else whole."""
    if isinstance(expected, dict) and isinstance(got, dict):
        found: dict[tuple[str, ...], Any] = {}
        for key in dict.fromkeys([*expected, *got]):
            found |= differing(expected.get(key, MISSING), got.get(key, MISSING), (*path, str(key)))
        return found
    return {} if expected == got else {path: got}


def part(value: Any, path: tuple[str, ...]) -> Any:
    """The part of a verdict's ``got`` at ``path`` (MISSING where there is none)."""
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return MISSING
        value = value[key]
    return value


def observe(subject: Subject, check: str, inputs: dict[str, Any]) -> Observation:
    """What an implementation answers on ``inputs``, as ``check``'s judge reads it."""
    try:
        verdict = JUDGES[BY_NAME[check].judged_as](subject, inputs)
    except Exception as error:  # a mutant that crashes there does not behave like a submission that answered
        return "raises", type(error).__name__
    return ("fails" if verdict.failing else "passes"), verdict.got


def matched_checks(cases: Sequence[FailedCase], scratch: Path) -> dict[str, list[str]]:
    """For each mutant, the checks on whose minimal input it answers as the submission did and the reference
    did not. A mutant that matches every case behaves like the submission on these inputs."""
    if not cases or not REFERENCE_SOURCE.is_file():
        return {}  # the student kit holds neither the reference nor a mutant: there is nothing to ask
    scratch.mkdir(parents=True, exist_ok=True)
    trusted = Subject(reference.reference_stage(), scratch)
    shrunk = [case for case in cases if case.inputs is not None]
    references = {case.check: observe(trusted, case.check, case.inputs) for case in shrunk if case.inputs is not None}
    kill_sets = load_kill_sets()
    return {
        mutant.id: _matches(mutant, cases, references, kill_sets.get(mutant.id, frozenset()), scratch)
        for mutant in load_catalogue()
    }


def _matches(
    mutant: Mutant,
    cases: Sequence[FailedCase],
    references: Mapping[str, Observation],
    kill_set: frozenset[str],
    scratch: Path,
) -> list[str]:
    """The checks ``mutant`` matches the submission on (measuring checks: by its kill set alone)."""
    try:
        stage = reference.stage_of(mutant_root(mutant, scratch / "mutants" / mutant.id))
    except DiffDoesNotApply:
        return []  # verify reports a stale diff; here the mutant simply proves nothing
    subject = Subject(stage, scratch)
    matched = []
    for case in cases:
        if case.inputs is None:
            if case.check in kill_set:
                matched.append(case.check)
            continue
        theirs = observe(subject, case.check, case.inputs)
        if theirs[0] == "fails" and theirs != references[case.check] and _agrees(theirs[1], case):
            matched.append(case.check)
    return matched


def _agrees(got: Any, case: FailedCase) -> bool:
    """Does the mutant's answer agree with the submission's wherever the check found the submission's wrong?"""
    faulted = case.faulted() if case.expected is not None else {(): case.got}
    return all(part(got, path) == value for path, value in faulted.items())
