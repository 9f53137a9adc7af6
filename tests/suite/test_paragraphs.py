"""What a paragraph is, and what dedup may change in a document."""

from __future__ import annotations

from typing import Any

import pytest

from corpus.doc import Doc
from dedup_harness.core.case_log import record

from .support import Run

SPLIT_CASES = [
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
]


def case_id(text: str) -> str:
    """The case's text in plain ASCII with no backslash ("a<LF><CR>b"). mutmut selects each mutant's
    tests by node id in a second pytest session of one process, where an id holding a backslash is
    not found and the mutant would count as killed."""
    names = {"\n": "<LF>", "\r": "<CR>", "\t": "<TAB>"}
    plain = (c if " " <= c <= "~" and c != "\\" else names.get(c, f"<U+{ord(c):04X}>") for c in text)
    return "".join(plain) or "<empty>"


SPLIT_IDS = [case_id(text) for text, _ in SPLIT_CASES]


@pytest.mark.parametrize(("text", "expected"), SPLIT_CASES, ids=SPLIT_IDS)
def test_paragraph_split_rules(impl: Any, run: Run, text: str, expected: list[str]) -> None:
    """Blank lines (empty, or spaces and tabs only) split; anything else on a line, even a lone CR, does not."""
    record(text=text)
    got = impl.paragraphs(text)
    assert got == expected, f"paragraphs({text!r}) should be {expected!r}, got {got!r}"
    # The stage splits the same way: a later document holding only the last paragraph is dropped.
    docs = [Doc("first", text)] + ([Doc("copy", expected[-1])] if expected else [])
    out, _ = run(docs)
    assert out == docs[:1], (
        f"for {docs!r} the stage should return only the first document (the second one's only paragraph, "
        f"{expected[-1]!r}, repeats the first's last), got {out!r}"
        if expected
        else f"a document with no paragraphs should come back unchanged: expected {docs!r}, got {out!r}"
    )


def test_a_repeat_inside_one_document_is_removed(run: Run) -> None:
    """A repeat is any later occurrence, in the same document or another: the document itself stays."""
    page = Doc("page", "Intro.\n\nFooter line.\n\nBody.\n\nFooter line.", {"n": 1})
    echo = Doc("echo", "Again.\n\nAgain.\n\nAgain.")
    later = Doc("later", "Body.\n\nNew words.\n\nNew words.")
    record(docs=[page, echo, later], bloom_bytes_per_item=10)
    out, stats = run([page, echo, later])
    assert out == [
        Doc("page", "Intro.\n\nFooter line.\n\nBody.", {"n": 1}),
        Doc("echo", "Again."),
        Doc("later", "New words."),
    ], f"expected 'page' without its second footer, 'echo' as 'Again.', 'later' as 'New words.'; got {out!r}"
    got = (stats.get("duplicate_paragraphs"), stats.get("docs_dropped"))
    assert got == (5, 0), f"expected 5 duplicate paragraphs and no document dropped, got {got[0]!r} and {got[1]!r}"


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


def test_untouched_documents_keep_their_exact_text(run: Run) -> None:
    """A document that loses nothing comes back equal: line breaks, surrounding blanks and meta included."""
    touched = [Doc("a", "Shared paragraph.\n\nMine."), Doc("b", "Shared paragraph.\n\n  Yours.  ")]
    record(docs=touched[:1] + UNTOUCHED + touched[1:], bloom_bytes_per_item=10)
    out, _ = run(touched[:1] + UNTOUCHED + touched[1:])
    by_id = {d.id: d for d in out}
    changed = [d for d in UNTOUCHED if by_id.get(d.id) != d]
    assert not changed, "documents with no repeats should come back exactly as they went in: " + "; ".join(
        f"expected {d!r}, got {by_id.get(d.id)!r}" for d in changed[:3]
    )
    assert by_id["b"] == Doc("b", "Yours."), f"the touched document should be 'Yours.', got {by_id.get('b')!r}"
