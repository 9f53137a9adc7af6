"""rbloom and pybloom-live as installed: never a false negative; their rate kept except where it is not."""

from __future__ import annotations

import pytest

from dedup_harness.bloom_audit.audit import AuditReport, audit
from dedup_harness.bloom_audit.filters import resolve_target

from .requirements import require


def failures(report: AuditReport) -> dict[str, list[str]]:
    return {row.case: row.causes for row in report.rows if row.verdict == "fail"}


@pytest.fixture(scope="module")
def rbloom_report() -> AuditReport:
    require("rbloom")
    return audit(resolve_target("rbloom"))


@pytest.fixture(scope="module")
def pybloom_report() -> AuditReport:
    require("pybloom_live")
    return audit(resolve_target("pybloom-live"))


def test_rbloom_never_forgets_and_reaches_every_bit_it_allocates(rbloom_report: AuditReport) -> None:
    for row in rbloom_report.rows:
        checks = {c.check: c.status for c in row.checks}
        assert checks["no false negatives"] == "pass", row
        if row.k:
            assert row.reachable_bits == row.allocated_bits, row


def test_rbloom_truncates_k_so_high_rates_are_broken(rbloom_report: AuditReport) -> None:
    # k = floor(m/n ln 2): at p = 0.26 k = 1 delivers about 0.30; above p = 0.5 k = 0 answers "present" to all.
    assert failures(rbloom_report) == {
        "high rate 3000: n=1071, p=0.26": ["rate above its promise"],
        "high rate 3000: n=2830, p=0.601": ["k = 0", "rate above its promise"],
    }


def test_pybloom_live_keeps_its_sizing_and_breaks_its_promise_only_near_p_one_half(pybloom_report: AuditReport) -> None:
    # k = ceil(log2(1/p)) = 2 at p = 0.45 over k slices sized for the optimal k: about 0.49 delivered.
    assert failures(pybloom_report) == {"high rate 3000: n=1807, p=0.45": ["rate above its promise"]}
    assert all(c.status == "pass" for row in pybloom_report.rows for c in row.checks if c.check == "sizing")
