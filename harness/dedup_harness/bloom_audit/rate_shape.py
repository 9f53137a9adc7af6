"""The cause a failed rate points to when no bits can be read: the shape of the delivered rate over the sizes.

Reachability needs an index function or bits to read; without them only the delivered rate is left,
and its shape over the size families still tells the causes apart. An index that reaches only a few
bits (a mask, a constant) delivers a rate that stays high at every size, however low the promise; an
index that uses only part of the bits delivers, at every size, what that part would. Each case also
bounds the bits in use: a uniform index over m' bits with k hashes delivers ``(1 - e**(-k n / m'))**k``
after n items, more as m' shrinks, so the lowest rate the queries allow (at the audit's alpha) gives
the most bits the filter can be using. That bound is the reachable count such a row shows.
"""

from __future__ import annotations

from dataclasses import replace

from dedup_harness.bloom_audit.binomial import lowest_rate
from dedup_harness.bloom_audit.filter_checks import FAIL, NA
from dedup_harness.bloom_audit.formulas import bits_for_rate
from dedup_harness.bloom_audit.model import CaseReport

HIGH = 0.5  # a rate at least this high at every size, while the promises go below LOW, is a few bits at most
LOW = 0.1
PART = 0.8  # at most this share of the bits in use, at every size: part of the bits are never used
FEW_BITS = "index reaches few bits (its rate stays high at every size)"
PART_OF_BITS = "part of the bits unused (its rate, at every size)"
HOW = "rate"  # CaseReport.reachable_how of a count bounded by the rate


def bits_in_use(row: CaseReport, alpha: float) -> int | None:
    """The most bits a uniform index with the row's k could use and still deliver its false positives."""
    if row.k is None or row.k < 1 or not row.queries:
        return None
    most = bits_for_rate(lowest_rate(row.false_positives, row.queries, alpha), row.k, row.capacity)
    return None if most == float("inf") else int(most)


def named_by_shape(rows: list[CaseReport], alpha: float) -> list[CaseReport]:
    """``rows``, where no bits could be read and the rate failed in a shape, with the cause it names."""
    unread = [r for r in rows if not r.control and r.verdict != NA and _status(r, "reachability") == NA]
    if not unread or any(_status(r, "delivered rate") != FAIL for r in unread):
        return rows
    cause = _cause(unread, alpha)
    if cause is None:
        return rows
    named = {id(row) for row in unread}
    return [_named(row, cause, alpha) if id(row) in named else row for row in rows]


def _cause(unread: list[CaseReport], alpha: float) -> str | None:
    delivered = [r.delivered_rate or 0.0 for r in unread]
    promised = [r.promised_rate or 0.0 for r in unread]
    if min(delivered) >= HIGH and min(promised) <= LOW:
        return FEW_BITS
    shares = [_share(r, alpha) for r in unread]
    if all(share is not None and share <= PART for share in shares):
        return PART_OF_BITS
    return None


def _share(row: CaseReport, alpha: float) -> float | None:
    most = bits_in_use(row, alpha)
    return most / row.allocated_bits if most is not None and row.allocated_bits else None


def _named(row: CaseReport, cause: str, alpha: float) -> CaseReport:
    most = bits_in_use(row, alpha)
    bound = (
        f"; its rate is what at most {most:,} bits give with k = {row.k}"
        if most is not None
        else "; k is hidden, so the bits in use cannot be bounded"
    )
    checks = [
        replace(c, cause=cause, reason=c.reason + bound) if c.check == "delivered rate" else c for c in row.checks
    ]
    return replace(row, checks=checks, reachable_bits=most, reachable_how=HOW if most is not None else "n/a")


def _status(row: CaseReport, check: str) -> str:
    return next((c.status for c in row.checks if c.check == check), NA)
