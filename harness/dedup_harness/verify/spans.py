"""Where a mutant changes the reference: one tight span per hunk, for reports that place mutants on the source.

A hunk is one run of changed lines (the hunks of a diff without context). Its span is narrowed to the
characters that differ: what the old and the new lines share at their start and their end is left out,
so an unchanged line inside a hunk never shows as removed and added again. A span starts at its first
changed column and ends after its last (1-based lines and columns, end exclusive, as Stryker's
locations are); the replacement has no trailing newline: a hunk that only adds or only removes whole
lines is placed at the end of the line before it, its line break moved to the front.
"""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Span:
    """One hunk of a mutant in one file of the reference: the old text's place, and the new text."""

    file: str
    start_line: int
    start_column: int
    end_line: int  # the end is exclusive: the position just after the last changed character
    end_column: int
    replacement: str


def mutant_spans(reference: Path, mutant: Path) -> list[Span]:
    """Every hunk in which the mutant root differs from the reference root, file by file, in order."""
    spans = []
    for path in sorted((reference / "corpus").glob("*.py")):
        before = path.read_text(encoding="utf-8")
        after = (mutant / "corpus" / path.name).read_text(encoding="utf-8")
        spans += text_spans(f"corpus/{path.name}", before, after)
    return spans


def text_spans(name: str, before: str, after: str) -> list[Span]:
    """The tight span of every hunk that turns ``before`` into ``after``."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    starts = _line_starts(old)
    spans = []
    for group in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_grouped_opcodes(0):
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        begin, end, replacement = _narrow(before, starts[i1], starts[i2], "".join(new[j1:j2]))
        spans.append(Span(name, *_position(before, begin), *_position(before, end), replacement))
    return spans


def _line_starts(lines: list[str]) -> list[int]:
    """The offset of each line's first character, and of the end of the text."""
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return starts


def _narrow(text: str, begin: int, end: int, new: str) -> tuple[int, int, str]:
    """``text[begin:end]`` becomes ``new``: drop what both share at either end; no newline last in ``new``."""
    old = text[begin:end]
    prefix = _shared(old, new)
    suffix = _shared(old[prefix:][::-1], new[prefix:][::-1])
    begin, end = begin + prefix, end - suffix
    new = new[prefix : len(new) - suffix]
    # Whole lines added or removed: the same edit, one character earlier, ends before the line break.
    while (new.endswith("\n") or text[begin:end].endswith("\n")) and not (new and text[begin:end]):
        if begin == 0 or text[begin - 1] != "\n":
            break
        if new:
            new = "\n" + new[:-1]
        begin, end = begin - 1, end - 1
    return begin, end, new


def _shared(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share at their start."""
    return sum(1 for _ in itertools.takewhile(lambda pair: pair[0] == pair[1], zip(a, b, strict=False)))


def _position(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
