"""The reference's blank-line pattern starts at \n for speed; its paragraphs are those of the chapter's pattern."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from corpus.dedup import paragraphs

# The chapter's pattern: the \r of the first line break belongs to the separator.
CHAPTER = re.compile(r"\r?\n(?:[ \t]*\r?\n)+")


def chapter_paragraphs(text: str) -> list[str]:
    return [piece.strip() for piece in CHAPTER.split(text) if piece.strip()]


@given(st.text(alphabet="ab \t\r\n\x0b\xa0", max_size=40))
@example("a\r\r\n\r\nb")
@example("a\r\n \t\r\n\r\nb\r")
@example("\r\n\r\n")
def test_the_faster_pattern_gives_the_chapter_paragraphs(text: str) -> None:
    assert paragraphs(text) == chapter_paragraphs(text)
