"""The judge of the spool: it lives under ``spool_dir`` while the stage runs, and nothing is left however it ends.

Nothing under ``spool_dir``, nor anywhere else the stage could write: a copy of its input left in the
temp folder, the worker's home or the session outlives the stage as much as one left in the spool
(the subject's ``writes`` watch says what is new or changed there once the stage ended).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from dedup_harness.core.judges.verdict import Inputs, Subject, Verdict, verdict
from dedup_harness.core.removal import entries_under

ENDINGS = ("read to the end", "closed early", "closed before start", "input raised")
SHOWN_ELSEWHERE = 5  # of what a stage left outside spool_dir, the entries a message names
BROKEN_INPUT = "the input broke"  # what the input raises, for the "input raised" ending


class InputBroke(RuntimeError):
    """What the input raises part way through, for the stage to let through."""


def left_in(folder: Path) -> list[str]:
    """What lies under ``folder`` (its first entries, at any depth, never following a link, names escaped:
    a stage may leave any tree behind)."""
    return entries_under(folder)


def raising(docs: list[Any]) -> Iterator[Any]:
    yield from docs
    raise InputBroke(BROKEN_INPUT)


def spool(subject: Subject, inputs: Inputs) -> Verdict:
    """Under a fresh ``spool_dir``: the spool is there once the first document came out (when the stage is
    read to the end), the input's error comes through (when it raised), and nothing is left at the end."""
    docs, ending = inputs["docs"], inputs["ending"]
    subject.scratch.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="spool-", dir=subject.scratch))
    source: Iterable[Any] = raising(docs) if ending == "input raised" else docs
    differences = []
    with subject.writes(subject.scratch) as writes:
        stage = subject.impl.exact_dedup(iter(source), 10, spool_dir=folder)
        if ending == "read to the end":
            next(stage)
            if not left_in(folder):
                differences.append("while the stage ran its spool should live under spool_dir, which was empty")
            list(stage)
        elif ending == "closed early":
            next(stage)
            stage.close()
        elif ending == "closed before start":
            stage.close()
        else:
            differences += _lets_the_error_through(stage)
    left, elsewhere = left_in(folder), writes.left(folder)
    if left:  # the entries directly under it, as the count of them says; what lies in them after
        top = [entry for entry in left if "/" not in entry]
        within = f", and within them {left[len(top) :]}" if len(left) > len(top) else ""
        differences.append(f"spool_dir should be empty once the stage ended ({ending}), it holds {top}{within}")
    if elsewhere:
        shown = ", ".join(elsewhere[:SHOWN_ELSEWHERE]) + (", ..." if len(elsewhere) > SHOWN_ELSEWHERE else "")
        differences.append(
            f"nothing the stage wrote may outlive it, outside spool_dir either: once it ended ({ending}), "
            f"{len(elsewhere)} new or changed entries were left: {shown}"
        )
    # By how many folders or files lie directly under spool_dir (and elsewhere): a spool's name is random,
    # and what a stage left must compare alike between two runs and two stages that leave the same thing.
    got = {"entries_left_in_spool_dir": len(os.listdir(folder)), "entries_left_elsewhere": len(elsewhere)}
    return verdict({"entries_left_in_spool_dir": 0, "entries_left_elsewhere": 0}, got, differences)


def _lets_the_error_through(stage: Iterator[Any]) -> list[str]:
    try:
        list(stage)
    except RuntimeError as error:  # the grader's proxy rebuilds it as the builtin it extends
        if BROKEN_INPUT not in str(error):
            raise
        return []
    return [f"the input raised RuntimeError({BROKEN_INPUT!r}) part way through, and the stage did not let it through"]
