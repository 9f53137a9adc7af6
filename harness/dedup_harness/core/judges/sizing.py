"""Judges of the filter's memory knob: B bytes per paragraph, the rate it promises, and the false positives it buys.

The expected rate, bits and budget come from ``core.bloom_sizing`` and the paragraph count from the
oracle's split: never from the implementation's own ``bloom_rate`` or stats, except where that value
is what the check asks about (``sizing`` asks about ``bloom_rate`` and ``bloom_bits``).
"""

from __future__ import annotations

import math
from typing import Any

from dedup_harness.core import bloom_sizing
from dedup_harness.core.judges.expected import Expected
from dedup_harness.core.judges.running import run_stage
from dedup_harness.core.judges.verdict import Inputs, Subject, Verdict, verdict

RATE_TOLERANCE = 1e-9  # relative: the formula, not an approximation of it


def is_usable(b: Any) -> bool:
    """A B the stage must accept: a positive finite number."""
    return isinstance(b, (int, float)) and not isinstance(b, bool) and math.isfinite(b) and b > 0


def sizing(subject: Subject, inputs: Inputs) -> Verdict:
    """A bad B is a ValueError; bloom_rate(B) = exp(-8B (ln 2)**2); for documents, about 8BN bits for N paragraphs."""
    b = inputs["bloom_bytes_per_item"]
    if not is_usable(b):
        return refused(subject, b)
    want, got = bloom_sizing.rate(b), subject.impl.bloom_rate(b)
    if not (isinstance(got, float) and math.isclose(got, want, rel_tol=RATE_TOLERANCE)):
        return verdict(
            {"bloom_rate": want},
            {"bloom_rate": got},
            [f"bloom_rate({b}) should be exp(-8B (ln 2)**2) = {want!r}, got {got!r}"],
        )
    if "docs" not in inputs:
        return Verdict(False)
    n = len(Expected(inputs["docs"], b).paragraphs)
    _, stats = run_stage(subject.impl, inputs["docs"], b)
    want_bits, got_bits = 8 * b * max(n, 1), stats.get("bloom_bits")
    if isinstance(got_bits, int) and abs(got_bits - want_bits) <= 1:
        return Verdict(False)
    return verdict(
        {"bloom_bits": want_bits},
        {"bloom_bits": got_bits},
        [f"for {n} paragraphs at B={b} the filter should have about 8BN = {want_bits:g} bits, got {got_bits!r}"],
    )


def refused(subject: Subject, b: Any) -> Verdict:
    """``exact_dedup([], b)`` raises ValueError before it reads anything."""
    try:
        list(subject.impl.exact_dedup([], b))
    except ValueError:
        return Verdict(False)
    return verdict(
        {"raises": "ValueError"}, {"raises": None}, [f"exact_dedup([], {b!r}) should raise ValueError, it did not"]
    )


def budget(subject: Subject, inputs: Inputs) -> Verdict:
    """As many false positives as a filter sized by the rule meets screening N paragraphs at B, give or take the
    slack (none at all at B = 10): too many, and the filter errs more than its sizing promises; too few, and
    the screen is not the filter the sizing describes (more hashes than the rule's, a set of every digest)."""
    docs, b = inputs["docs"], inputs["bloom_bytes_per_item"]
    expected = Expected(docs, b)
    n, promised = len(expected.paragraphs), expected.budget
    _, stats = run_stage(subject.impl, docs, b)
    positives = stats.get("false_positives")
    if type(positives) is int and promised.allows(positives):
        return Verdict(False)
    window = f"{promised.least} to {promised.most}" if promised.most else "none"
    return verdict(
        {"false_positives_between": [promised.least, promised.most]},
        {"false_positives": positives},
        [
            f"{positives!r} false positives among {n} paragraphs at B={b}; a filter sized by the rule meets "
            f"{promised.mean:.1f} on average there, and the sizing allows {window}"
        ],
    )
