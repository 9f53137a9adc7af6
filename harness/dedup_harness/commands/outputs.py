"""What every command shares for its outputs: a machine-readable file (or ``-``), and one-line errors."""

from __future__ import annotations

import sys
from pathlib import Path

STDOUT = "-"


def write_output(destination: str | Path, text: str) -> None:
    """``text`` to the file ``destination``, or to standard output when it is ``-``."""
    if str(destination) == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        Path(destination).write_text(text, encoding="utf-8")


def append_output(destination: str | Path, text: str) -> None:
    """``text`` added to the end of the file ``destination`` (made when missing), or to standard output for ``-``.

    For files that several commands write in turn: GitHub's ``$GITHUB_STEP_SUMMARY`` is appended to by
    every command of a step, and writing it afresh would drop what the earlier ones wrote.
    """
    if str(destination) == STDOUT:
        write_output(destination, text)
        return
    with open(destination, "a", encoding="utf-8") as out:
        out.write(text)


def to_stdout(*destinations: str | Path | None) -> bool:
    """Does one of these outputs go to standard output? (The table for people then goes to stderr.)"""
    return any(destination is not None and str(destination) == STDOUT for destination in destinations)


def fail(command: str, message: object, status: int = 2) -> int:
    """One plain line on stderr (never wrapped: a path in it stays whole); returns ``status``."""
    print(f"dedup-harness {command}: {message}", file=sys.stderr)
    return status
