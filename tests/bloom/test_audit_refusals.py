"""What a filter refuses the audit is a finding in words, and the audit goes on with what it can measure."""

from __future__ import annotations

import pytest

from dedup_harness.bloom_audit.testing import FilterAuditFailed, assert_filter_ok, audit_filter

from . import shown_filters

FAST = {"families": ["power of two"], "queries": 4000}


def test_an_insert_refused_at_capacity_is_noted_and_the_bits_it_took_are_judged() -> None:
    report = assert_filter_ok(shown_filters.FullAtCapacity, **FAST)  # a correct filter: it passes
    (note,) = report.notes
    assert (note.cause, note.rows) == ("refused an insert at capacity", 2)
    assert note.example == (
        "power of two 1024: n=107, p=0.0101: it refused an insert at capacity after 107 items"
        " (IndexError: BloomFilter is at capacity): the audit sized it for 107"
    )
    reach = next(c for c in report.rows[0].checks if c.check == "reachability")
    assert reach.status == "pass" and "as a uniform index over 1024 bits gives" in reach.reason


def test_items_of_a_type_it_refuses_make_every_case_n_a_and_the_entry_point_fails_in_words() -> None:
    report = audit_filter(shown_filters.TextOnly, **FAST)
    assert [row.verdict for row in report.rows] == ["n/a", "n/a"]
    assert report.rows[0].promise_basis == "it refused the case (TypeError: expected str, got bytes)"
    with pytest.raises(FilterAuditFailed) as raised:
        assert_filter_ok(shown_filters.TextOnly, **FAST)
    headline = str(raised.value).splitlines()[0]
    assert headline == f"{shown_filters.__name__}:TextOnly: no case could be measured (refused the case)"
