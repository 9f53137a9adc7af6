"""The paragraph split rule's cases, worked by hand: each text and the paragraphs the rule finds in it.

A blank line is empty or holds only spaces and tabs; a line break is ``\\n`` or ``\\r\\n``; a lone
``\\r``, a non-breaking space or any other character makes a line non-blank; pieces are stripped and
empty ones skipped. The split check (``tests/suite/test_paragraphs.py``) puts every text to the
implementation, judged against the oracle's split; ``tests/reference/test_oracle.py`` holds the
oracle (and the reference) to the paragraphs written here.
"""

from __future__ import annotations

SPLIT_CASES: tuple[tuple[str, list[str]], ...] = (
    ("one paragraph", ["one paragraph"]),
    ("", []),
    ("  \n\t\n \r\n", []),
    ("line one\nline two", ["line one\nline two"]),
    ("a\n\nb", ["a", "b"]),
    ("a\n \nb", ["a", "b"]),
    ("a\n\t\nb", ["a", "b"]),
    ("a\n \t \n\n\t\nb", ["a", "b"]),
    ("  a  \n\n\tb\t", ["a", "b"]),
    ("\n\n\na\n\n\n\nb\n\n", ["a", "b"]),
    ("a\r\n\r\nb", ["a", "b"]),
    ("a\r\nb", ["a\r\nb"]),
    ("a\r\n \t\r\nb", ["a", "b"]),
    ("a\n\r\nb", ["a", "b"]),
    ("a \nb\n\nc", ["a \nb", "c"]),
    ("a\n\xa0\nb", ["a\n\xa0\nb"]),
    ("a\n\r\r\nb", ["a\n\r\r\nb"]),
    ("a\n\rb", ["a\n\rb"]),
    ("a\n\x0b\nb", ["a\n\x0b\nb"]),
    ("a\n\x0c\nb", ["a\n\x0c\nb"]),
    ("a\u2028\u2028b", ["a\u2028\u2028b"]),
    ("é ☕\n\n東京", ["é ☕", "東京"]),
)
