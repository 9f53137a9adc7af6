"""What a paragraph is, and what dedup may change in a document."""

from __future__ import annotations

import pytest

from corpus.doc import Doc
from dedup_harness.core.split_cases import SPLIT_CASES

from .conftest import Judge


def case_id(text: str) -> str:
    """The case's text in plain ASCII with no backslash ("a<LF><CR>b"). mutmut selects each mutant's
    tests by node id in a second pytest session of one process, where an id holding a backslash is
    not found and the mutant would count as killed."""
    names = {"\n": "<LF>", "\r": "<CR>", "\t": "<TAB>"}
    plain = (c if " " <= c <= "~" and c != "\\" else names.get(c, f"<U+{ord(c):04X}>") for c in text)
    return "".join(plain) or "<empty>"


TEXTS = [text for text, _ in SPLIT_CASES]


@pytest.mark.parametrize("text", TEXTS, ids=[case_id(text) for text in TEXTS])
def test_paragraph_split_rules(judge: Judge, text: str) -> None:
    """Blank lines (empty, or spaces and tabs only) split; anything else on a line, even a lone CR, does not:
    ``paragraphs(text)`` alone, as the contract names it (the stage's own split is judged by its output)."""
    judge(text=text)


def test_a_repeat_inside_one_document_is_removed(judge: Judge) -> None:
    """A repeat is any later occurrence, in the same document or another: the document itself stays."""
    page = Doc("page", "Intro.\n\nFooter line.\n\nBody.\n\nFooter line.", {"n": 1})
    echo = Doc("echo", "Again.\n\nAgain.\n\nAgain.")
    later = Doc("later", "Body.\n\nNew words.\n\nNew words.")
    judge(docs=[page, echo, later], bloom_bytes_per_item=10)


UNTOUCHED = [
    Doc(
        "spaces",
        "  Title line  \r\nsecond line\t\n\n\n\nLast paragraph.   ",
        {"lang": "en", "tags": ["x", "y"], "nested": {"n": 1, "f": 0.5, "none": None, "ok": True}},
    ),
    Doc("blank-edges", "\n \nOnly paragraph, between blank lines.\n\t\n"),
    Doc("inner-breaks", "one\ntwo\r\nthree\n \nfour\n\n\nfive", {"source": "é"}),
    Doc("empty", ""),
    Doc("blank", " \t\n\n  "),
]
TOUCHED = [Doc("a", "Shared paragraph.\n\nMine."), Doc("b", "Shared paragraph.\n\n  Yours.  ")]


def test_untouched_documents_keep_their_exact_text(judge: Judge) -> None:
    """A document that loses nothing comes back equal: line breaks, surrounding blanks and meta included;
    the one that loses a paragraph keeps the rest."""
    judge(docs=TOUCHED[:1] + UNTOUCHED + TOUCHED[1:], bloom_bytes_per_item=10)
