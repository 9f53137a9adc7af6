"""The judge of the paragraph split: ``paragraphs(text)`` as the rule has it, and the stage splitting alike."""

from __future__ import annotations

import importlib

from dedup_harness.core import reference
from dedup_harness.core.judges.output import compare
from dedup_harness.core.judges.verdict import Inputs, Subject, Verdict, verdict


def split(subject: Subject, inputs: Inputs) -> Verdict:
    """``paragraphs(text)`` equals the oracle's split; and the stage, given the text as 'first' and its last
    paragraph alone as 'copy', keeps 'first' as it was and drops 'copy' (it splits the same way)."""
    text = inputs["text"]
    want, got = reference.oracle().paragraphs(text), subject.impl.paragraphs(text)
    if got != want:
        return verdict(
            {"paragraphs": want}, {"paragraphs": got}, [f"paragraphs({text!r}) should be {want!r}, got {got!r}"]
        )
    doc = importlib.import_module("corpus.doc").Doc
    docs = [doc("first", text)] + ([doc("copy", want[-1])] if want else [])
    result = compare(subject, {"docs": docs, "bloom_bytes_per_item": 10}, {})
    result.differences = [
        f"the stage, given 'first' = the text and 'copy' = its last paragraph alone: {d}" for d in result.differences
    ]
    return result
