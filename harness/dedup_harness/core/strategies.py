"""Hypothesis strategies for small corpora that shrink well: a failing case ends as a few short documents.

Like the generators, they produce plain records ``{"id", "text", "meta"}``.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from hypothesis import strategies as st

# Paragraphs that tempt wrong implementations: near-duplicates, inner line breaks in both line-end
# styles, non-ASCII text, a one-letter paragraph.
PARAGRAPHS = (
    "The cat sat.",
    "The cat sat!",
    "The dog ran.",
    "line one\nline two",
    "line one\r\nline two",
    "café ☕ naïve",
    "x",
    "Footer: all rights reserved.",
)
# Blank-line runs between paragraphs, as a correct split must see them.
SEPARATORS = ("\n\n", "\n\n\n", "\n \n", "\n\t\n", "\r\n\r\n", "\n\r\n", "\r\n \t\r\n", "\n  \n\n")
PADDING = ("", " ", "\t", "  \t")


@st.composite
def rendered_texts(draw: st.DrawFn) -> str:
    """Pooled paragraphs joined by blank-line runs, with spaces or tabs around them."""
    paras = draw(st.lists(st.sampled_from(PARAGRAPHS), max_size=5))
    text = ""
    for n, p in enumerate(paras):
        if n:
            text += draw(st.sampled_from(SEPARATORS))
        text += draw(st.sampled_from(PADDING)) + p + draw(st.sampled_from(PADDING))
    return text


# Raw text over an alphabet of line ends, blanks and look-alikes of blanks (NBSP, a lone \r).
raw_texts = st.text(alphabet="ab \t\r\n\xa0é", max_size=16)


def texts() -> st.SearchStrategy[str]:
    return st.one_of(rendered_texts(), raw_texts)


def corpora(max_docs: int = 8) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Lists of records with ids d0, d1, ... and a small meta."""
    return st.lists(texts(), max_size=max_docs).map(
        lambda items: [{"id": f"d{i}", "text": text, "meta": {"n": i}} for i, text in enumerate(items)]
    )


# -- near copies of a paragraph (test_paragraph_identity_is_the_exact_text) ------------------------

# Every general category but surrogates (UTF-8 cannot encode them; a stage refuses such text by name).
# (Typed loosely: Hypothesis spells the names as a Literal type it does not export.)
CATEGORIES: tuple[Any, ...] = (
    "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po",
    "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Co", "Cn",
)  # fmt: skip
# The text of a paragraph, before its spaces are tidied: mostly plain ASCII words and spaces (so case
# and spacing edits have something to change, with a few letters that case-fold or normalize), or
# characters from any script with marks, symbols and compatibility forms among them.
_PLAIN_TEXT = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;'!?-    \néßﬁ²Å", max_size=40)
_ANY_TEXT = st.text(st.characters(exclude_categories=("Cs", "Zl", "Zp", "Cc"), include_characters="\n"), max_size=24)
SHARED_LENGTH = 1000  # a long paragraph's edit may fall past this many characters


# One character from all of Unicode: a general category first, so rare ones (marks, format) come up.
ANY_CHARACTER: st.SearchStrategy[str] = st.one_of(*(st.characters(categories=[category]) for category in CATEGORIES))


@st.composite
def paragraph_texts(draw: st.DrawFn) -> str:
    """One paragraph as a split leaves it: single spaces and single line breaks between words; short or long."""
    words = draw(st.one_of(_PLAIN_TEXT, _ANY_TEXT)).replace("\n", " \n ").split(" ")
    text = " ".join(word for word in words if word).replace(" \n ", "\n").strip() or "x"
    if draw(st.booleans()):  # a long paragraph: its first thousand characters say nothing about the rest
        text = (text + " ") * (SHARED_LENGTH // (len(text) + 1) + 1) + text
    return text


def _position(draw: st.DrawFn, text: str, *, end: int = 0) -> int:
    """A place in ``text`` (up to len + end), often past its first thousand characters when it is that long."""
    last = len(text) - 1 + end
    late = st.integers(min(SHARED_LENGTH, last), last)
    return draw(st.one_of(st.integers(0, last), late) if last >= SHARED_LENGTH else st.integers(0, last))


def _replace(draw: st.DrawFn, p: str) -> str:
    i = _position(draw, p)
    return p[:i] + draw(ANY_CHARACTER) + p[i + 1 :]


def _insert(draw: st.DrawFn, p: str) -> str:
    i = _position(draw, p, end=1)
    return p[:i] + draw(ANY_CHARACTER) + p[i:]


def _delete(draw: st.DrawFn, p: str) -> str:
    i = _position(draw, p)
    return p[:i] + p[i + 1 :]


def _change_case(draw: st.DrawFn, p: str) -> str:
    cased = [i for i, c in enumerate(p) if c.swapcase() != c]
    whole = st.sampled_from((str.lower, str.upper, str.casefold, str.title, str.swapcase))
    if not cased or draw(st.booleans()):
        return str(draw(whole)(p))
    i = draw(st.sampled_from(cased))
    return p[:i] + p[i].swapcase() + p[i + 1 :]


def _change_whitespace(draw: st.DrawFn, p: str) -> str:
    """Inside a line: a space doubled, turned into a tab or another space character, or taken out; a line
    break turned into a space."""
    spaces = [i for i, c in enumerate(p) if c in " \n"]
    if not spaces:
        return p + draw(st.sampled_from(("\t", "  "))) + "x"
    i = draw(st.sampled_from(spaces))
    new = draw(st.sampled_from(("  ", "\t", " \t", "\xa0", "\u2003", "", " ")))
    return p[:i] + new + p[i + 1 :]


def _normalize(draw: st.DrawFn, p: str) -> str:
    """The paragraph in one of Unicode's normal forms: equal for a reader, a different text for the stage."""
    return unicodedata.normalize(draw(st.sampled_from(("NFC", "NFD", "NFKC", "NFKD"))), p)


EDITS = (_replace, _insert, _delete, _change_case, _change_whitespace, _normalize)

# A code point past the first 256 that a split leaves inside a paragraph (no spaces, line ends or controls).
WIDE_CHARACTER = st.characters(min_codepoint=256, exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp"))


def _wide_pair(draw: st.DrawFn, p: str) -> tuple[str, str]:
    """A paragraph holding a code point past the first 256 (one is put in if it has none), and the copy with
    another such code point, a "?" or U+FFFD in its place: equal under any narrow codec's errors="replace"
    or "ignore", which a stage that hashes an encoding other than UTF-8 would make one paragraph."""
    wide = [i for i, c in enumerate(p) if ord(c) > 255]
    if wide:
        i = draw(st.sampled_from(wide))
    else:
        i = _position(draw, p, end=1)
        p = p[:i] + draw(WIDE_CHARACTER) + p[i:]
    return p, p[:i] + draw(st.one_of(WIDE_CHARACTER, st.sampled_from("?\ufffd"))) + p[i + 1 :]


# The edits a near copy is made by, each as likely as the next except the wide pair, drawn a third of
# the time: it alone tells the UTF-8 digest from a narrow codec's, a whole family of wrong identities.
PAIRS: tuple[Any, ...] = (*EDITS, _wide_pair, _wide_pair, _wide_pair)


@st.composite
def near_copies(draw: st.DrawFn) -> tuple[str, str]:
    """A paragraph and a copy of it changed by one small edit (which may leave it unchanged or split it:
    the check keeps only pairs of two different single paragraphs)."""
    p = draw(paragraph_texts())
    edit = draw(st.sampled_from(PAIRS))
    return edit(draw, p) if edit is _wide_pair else (p, edit(draw, p))
