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


def to_stdout(*destinations: str | Path | None) -> bool:
    """Does one of these outputs go to standard output? (The table for people then goes to stderr.)"""
    return any(destination is not None and str(destination) == STDOUT for destination in destinations)


def fail(command: str, message: object, status: int = 2) -> int:
    """One plain line on stderr (never wrapped: a path in it stays whole); returns ``status``."""
    print(f"dedup-harness {command}: {message}", file=sys.stderr)
    return status
