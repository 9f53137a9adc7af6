"""Where a mutant changes the reference: the changed lines of each file, for reports that place mutants."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Span:
    """Where a mutant changes one file of the reference (1-based lines, end exclusive) and its new text."""

    file: str
    start: int
    end: int
    replacement: str


def mutant_spans(reference: Path, mutant: Path) -> list[Span]:
    """For each file the mutant changed: the first to last changed line of the reference, and the new lines."""
    spans = []
    for path in sorted((reference / "corpus").glob("*.py")):
        before = path.read_text(encoding="utf-8").splitlines(keepends=True)
        after = (mutant / "corpus" / path.name).read_text(encoding="utf-8").splitlines(keepends=True)
        opcodes = difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes()
        changes = [op for op in opcodes if op[0] != "equal"]
        if not changes:
            continue
        first, last = changes[0], changes[-1]
        start, end = first[1] + 1, max(last[2], first[1]) + 1
        replacement = "".join(after[first[3] : last[4]])
        spans.append(Span(f"corpus/{path.name}", start, end, replacement))
    return spans
