"""Shrink a failing input: fewer documents, then paragraphs, words, characters, then plain names.

A split's text loses words, then characters; a list of paragraphs to hash loses paragraphs.

Each step keeps a smaller input only while it still fails (``fails`` says so). Paragraphs are cut
with the blank lines after them, so what remains of a text keeps its own line breaks and spacing.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from dedup_harness.grade.minimize.ddmin import Tries, ddmin

Inputs = dict[str, Any]
_WORDS = re.compile(r"\S+|\s+")


def shrink(inputs: Inputs, fails: Callable[[Inputs], bool], budget: Tries, *, least_docs: int = 0) -> Inputs:
    """The smallest input found that still fails, starting from ``inputs`` (which must fail)."""
    if "text" in inputs:
        fixed = dict(inputs)
        for pieces in (_WORDS.findall, list):
            kept = ddmin(pieces(fixed["text"]), lambda c: fails({**fixed, "text": "".join(c)}), budget)
            fixed["text"] = "".join(kept)
        return fixed
    if "paragraphs" in inputs:
        kept = ddmin(list(inputs["paragraphs"]), lambda ps: fails({**inputs, "paragraphs": ps}), budget)
        return {**inputs, "paragraphs": kept}
    if "docs" not in inputs:
        return inputs
    start = _failing_prefix(list(inputs["docs"]), lambda d: fails({**inputs, "docs": d}), budget, least_docs)
    docs = ddmin(start, lambda d: fails({**inputs, "docs": d}), budget, least=least_docs)
    for i in range(len(docs)):
        docs = _fewer_paragraphs(docs, i, lambda d: fails({**inputs, "docs": d}), budget)
    docs = _lettered(docs, lambda d: fails({**inputs, "docs": d}), budget)
    for step in (_fewer_words, _fewer_characters):
        for i in range(len(docs)):
            docs = step(docs, i, lambda d: fails({**inputs, "docs": d}), budget)
    return {**inputs, "docs": _plainer(docs, lambda d: fails({**inputs, "docs": d}), budget)}


def _failing_prefix(docs: list[Any], fails: Callable[[list[Any]], bool], budget: Tries, least: int) -> list[Any]:
    """The shortest of the first 1, 2, 4, 8... documents that fails, or all of them: small runs are
    cheap, and one early repeat or one unlucky paragraph is often all a failure needs."""
    size = max(least, 1)
    while size < len(docs):
        if not budget.spend():
            break
        if fails(docs[:size]):
            return docs[:size]
        size *= 2
    return docs


def paragraph_blocks(text: str) -> list[str]:
    """The text cut into blocks of one paragraph each, with the blank lines that follow it (and the
    leading blank lines on the first): joined again they give the text back exactly."""
    blocks: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        blank = line.rstrip("\n").removesuffix("\r").strip(" \t") == ""
        if not blank and current and _ends_blank(current):
            blocks.append(current)
            current = ""
        current += line
    return [*blocks, current] if current else blocks


def _ends_blank(block: str) -> bool:
    last = block.splitlines()[-1] if block.splitlines() else ""
    return block.endswith("\n") and last.removesuffix("\r").strip(" \t") == ""


def _replace_text(docs: list[Any], i: int, text: str) -> list[Any]:
    return [*docs[:i], dataclasses.replace(docs[i], text=text), *docs[i + 1 :]]


def _lettered(docs: list[Any], fails: Callable[[list[Any]], bool], budget: Tries) -> list[Any]:
    """Each paragraph's words replaced by a letter (the same paragraph, the same letter), its spacing and
    line breaks kept: one try, often the whole way down, for a failure that hangs on which paragraphs
    repeat and not on what they say."""
    letters: dict[str, str] = {}

    def letter(paragraph: str) -> str:
        n = letters.setdefault(paragraph, str(len(letters)))
        return "".join(chr(ord("a") + int(digit)) for digit in n)

    def lettered_block(block: str) -> str:
        body = block.strip()
        if not body:
            return block
        start = block.index(body)
        return block[:start] + letter(body) + block[start + len(body) :]

    candidate = [
        dataclasses.replace(d, text="".join(lettered_block(b) for b in paragraph_blocks(d.text))) for d in docs
    ]
    if candidate != docs and budget.spend() and fails(candidate):
        return candidate
    return docs


def _fewer_paragraphs(docs: list[Any], i: int, fails: Callable[[list[Any]], bool], budget: Tries) -> list[Any]:
    blocks = paragraph_blocks(docs[i].text)
    kept = ddmin(blocks, lambda b: fails(_replace_text(docs, i, "".join(b))), budget)
    return _replace_text(docs, i, "".join(kept))


def _fewer_words(docs: list[Any], i: int, fails: Callable[[list[Any]], bool], budget: Tries) -> list[Any]:
    """Words and the runs of white space between them: a long text loses whole words at a time."""
    kept = ddmin(_WORDS.findall(docs[i].text), lambda w: fails(_replace_text(docs, i, "".join(w))), budget)
    return _replace_text(docs, i, "".join(kept))


def _fewer_characters(docs: list[Any], i: int, fails: Callable[[list[Any]], bool], budget: Tries) -> list[Any]:
    kept = ddmin(list(docs[i].text), lambda c: fails(_replace_text(docs, i, "".join(c))), budget)
    return _replace_text(docs, i, "".join(kept))


def _plainer(docs: list[Any], fails: Callable[[list[Any]], bool], budget: Tries) -> list[Any]:
    """Ids d1, d2... and empty meta, each kept only if the input still fails with it."""
    for plainer in (_renamed, _without_meta):
        candidate = plainer(docs)
        if candidate != docs and budget.spend() and fails(candidate):
            docs = candidate
    return docs


def _renamed(docs: list[Any]) -> list[Any]:
    return [dataclasses.replace(d, id=f"d{n}") for n, d in enumerate(docs, start=1)]


def _without_meta(docs: list[Any]) -> list[Any]:
    return [dataclasses.replace(d, meta={}) for d in docs]
