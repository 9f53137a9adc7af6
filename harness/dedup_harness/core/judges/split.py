"""The judge of the paragraph split: ``paragraphs(text)`` as the rule has it, and nothing else of the module.

The contract names ``paragraphs`` on its own, so the split is judged on it alone: a student who has
written it passes this check while the stage is still a stub, and a stage that splits otherwise than
its own ``paragraphs`` is caught by the checks that judge the stage's output against the oracle's
(checks 4 and 13 above all).
"""

from __future__ import annotations

from dedup_harness.core import reference
from dedup_harness.core.judges.verdict import Inputs, Subject, Verdict, verdict


def split(subject: Subject, inputs: Inputs) -> Verdict:
    """``paragraphs(text)`` equals the oracle's split."""
    text = inputs["text"]
    want, got = reference.oracle().paragraphs(text), subject.impl.paragraphs(text)
    differences = [] if got == want else [f"paragraphs({text!r}) should be {want!r}, got {got!r}"]
    return verdict({"paragraphs": want}, {"paragraphs": got}, differences)
