"""The judge of the spool: it lives under ``spool_dir`` while the stage runs, and nothing is left however it ends."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from dedup_harness.core.judges.verdict import Inputs, Subject, Verdict, verdict
from dedup_harness.core.removal import entries_under

ENDINGS = ("read to the end", "closed early", "closed before start", "input raised")
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
    stage = subject.impl.exact_dedup(iter(source), 10, spool_dir=folder)
    differences = []
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
    left = left_in(folder)
    if left:
        differences.append(f"spool_dir should be empty once the stage ended ({ending}), it holds {left}")
    # By how many folders or files lie directly under spool_dir: a spool's name is random, and what a
    # stage left must compare alike between two runs and two stages that leave the same thing.
    return verdict(
        {"entries_left_in_spool_dir": 0}, {"entries_left_in_spool_dir": len(os.listdir(folder))}, differences
    )


def _lets_the_error_through(stage: Iterator[Any]) -> list[str]:
    try:
        list(stage)
    except RuntimeError as error:  # the grader's proxy rebuilds it as the builtin it extends
        if BROKEN_INPUT not in str(error):
            raise
        return []
    return [f"the input raised RuntimeError({BROKEN_INPUT!r}) part way through, and the stage did not let it through"]
