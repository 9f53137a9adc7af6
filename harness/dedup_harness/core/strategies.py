"""Hypothesis strategies for small corpora that shrink well: a failing case ends as a few short documents.

Like the generators, they produce plain records ``{"id", "text", "meta"}``.
"""

from __future__ import annotations

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
