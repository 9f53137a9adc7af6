"""The set-based oracle for exact paragraph dedup: obviously correct and nothing else.

It shares nothing with the reference but ``Doc``: its own line-by-line paragraph split, a set of
paragraph texts (no hashing, no filter, no spool), and one streaming pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from corpus.doc import Doc


def is_blank(content: str) -> bool:
    """A blank line holds nothing, or only spaces and tabs."""
    return content.strip(" \t") == ""


def paragraphs(text: str) -> list[str]:
    """Split ``text`` line by line: blank lines end a paragraph; each paragraph is stripped; empty ones are skipped."""
    lines = text.split("\n")
    pieces: list[str] = []
    piece: list[str] = []
    for n, line in enumerate(lines):
        followed_by_break = n < len(lines) - 1
        # In a "\r\n" line break the "\r" belongs to the break, not to the line's content.
        content = line[:-1] if followed_by_break and line.endswith("\r") else line
        if is_blank(content):
            pieces.append("\n".join(piece))
            piece = []
        else:
            piece.append(line)
    pieces.append("\n".join(piece))
    return [p.strip() for p in pieces if p.strip()]


def exact_dedup(docs: Iterable[Doc], *, stats: dict[str, Any] | None = None) -> Iterator[Doc]:
    """Keep the first occurrence of every paragraph; drop documents left with none.

    ``stats`` gets what a set can know: docs_in, paragraphs, duplicate_paragraphs, docs_dropped, docs_out.
    """
    seen: set[str] = set()
    counts = dict.fromkeys(["docs_in", "paragraphs", "duplicate_paragraphs", "docs_dropped", "docs_out"], 0)
    for doc in docs:
        counts["docs_in"] += 1
        found = paragraphs(doc.text)
        counts["paragraphs"] += len(found)
        kept = []
        for p in found:
            if p not in seen:
                seen.add(p)
                kept.append(p)
        counts["duplicate_paragraphs"] += len(found) - len(kept)
        if len(kept) == len(found):
            counts["docs_out"] += 1
            yield doc
        elif kept:
            counts["docs_out"] += 1
            yield Doc(doc.id, "\n\n".join(kept), doc.meta)
        else:
            counts["docs_dropped"] += 1
    if stats is not None:
        stats.update(counts)
