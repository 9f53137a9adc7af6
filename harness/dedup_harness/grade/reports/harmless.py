"""Text a submission controls, made harmless for every report: visible escapes, nothing a reader acts on.

A submission writes its own exception messages, printed output, stats values and the documents of
its minimal cases, and chooses the paths its attempts name. Read raw, that text acts on whoever
reads the report: ESC starts a sequence that clears a TA's screen or retitles the window, BEL rings;
one NUL makes a JUnit file no CI reader opens (XML 1.0 forbids most control characters); a
bidirectional override (U+202E) reorders what a person reads; a lone surrogate cannot be written as
UTF-8 at all; a spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula.

Each format passes what it writes through here at its edge (``text`` or ``line`` for every string,
``tree`` for a whole JSON document, ``cell`` for the CSV). Such a character becomes its Python
escape written out (``\\x1b``, ``\\u202e``, ``\\ud800``), which every format shows as plain text;
tabs and line breaks stay where a format keeps them. A line is cut at ``LINE_LIMIT`` characters and
a text at ``TEXT_LIMIT``, each cut saying how long the whole was. Every function gives the same text
for the same input, and text already made harmless comes back unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import Enum
from typing import Any

LINE_LIMIT = 2_000  # characters of one line, after escaping
TEXT_LIMIT = 20_000  # characters of one text, after escaping: the size of the student output a report keeps
# C0 controls but tab and line feed, DEL, C1 controls, the bidirectional controls (U+061C, U+200E-U+200F,
# U+202A-U+202E, U+2066-U+2069), the line and paragraph separators, lone surrogates, the byte order mark and
# the two noncharacters XML 1.0 forbids.
_UNSAFE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufeff\ufffe\uffff"
_IN_TEXT = re.compile(f"[{_UNSAFE}]")
_IN_LINE = re.compile(f"[{_UNSAFE}\t\n]")  # a one-line place shows tabs and line breaks as escapes too
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}  # as Python writes them
FORMULA_STARTS = ("=", "+", "-", "@")  # what a spreadsheet reads as the start of a formula


def text(value: str) -> str:
    """``value`` with every unsafe character written as its escape, tabs and line breaks kept, cut to size."""
    lines = _IN_TEXT.sub(_escape, value).split("\n")
    return _cut("\n".join(_cut(line, LINE_LIMIT) for line in lines), TEXT_LIMIT)


def line(value: str) -> str:
    """``value`` on one line: tabs and line breaks written as escapes too, cut to ``LINE_LIMIT``."""
    return _cut(_IN_LINE.sub(_escape, value), LINE_LIMIT)


def cell(value: str) -> str:
    """A CSV cell: one line, and a leading apostrophe before a formula's first character.

    The apostrophe is what spreadsheets themselves write before text that would read as a formula;
    LibreOffice and Excel show it, and run nothing.
    """
    safe = line(value)
    return "'" + safe if safe.startswith(FORMULA_STARTS) else safe


MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]|~])")  # what starts emphasis, code, a link or a cell


def markdown(value: str) -> str:
    """A Markdown table cell: one line, markup characters escaped, ``<`` and ``&`` as entities (no HTML)."""
    safe = line(value).replace("&", "&amp;").replace("<", "&lt;")
    return MARKDOWN_PUNCTUATION.sub(r"\\\1", safe)


def tree(value: Any) -> Any:
    """A JSON-like document with every string in it (keys too) made harmless by ``text``."""
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return text(value)
    if isinstance(value, Mapping):
        return {tree(key): tree(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [tree(item) for item in value]
    return value


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _cut(value: str, limit: int) -> str:
    """``value`` whole, or its start and a note of its length, ``limit`` characters in all (cut once, not again)."""
    if len(value) <= limit:
        return value
    note = f"… [cut: {len(value):,} characters in all]"
    return value[: limit - len(note)] + note
