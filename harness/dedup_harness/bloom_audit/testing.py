"""audit-bloom in a filter's own tests: audit a class or factory, or assert in one line that it keeps its promise.

    from dedup_harness.bloom_audit.testing import assert_filter_ok

    def test_the_filter_keeps_its_promise_at_every_size():
        assert_filter_ok(BloomFilter)

``audit_filter`` returns the audit (each case's verdict, each fault with its reproduction);
``assert_filter_ok`` raises ``FilterAuditFailed``, an AssertionError whose message is the audit's
table, its faults and each fault's minimal reproduction, when any case fails.

A plain function rather than a pytest plugin or fixture: the audit needs nothing of pytest's, so
nothing of ours has to be loaded into the maintainer's run for it to work (it works the same with
plugin autoloading off, and under unittest). The one plugin the distribution registers (``--impl``,
for the course's suite) only adds its option; this module imports the audit and rich, nothing else of
the harness.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console

from dedup_harness.bloom_audit.any_filter import FAMILIES, TAKES, AnyFilterTarget, Driving
from dedup_harness.bloom_audit.audit import AuditReport, audit
from dedup_harness.bloom_audit.binomial import ALPHA
from dedup_harness.bloom_audit.filter_checks import QUERIES
from dedup_harness.bloom_audit.report import print_audit

__all__ = ["ALPHA", "FAMILIES", "QUERIES", "TAKES", "FilterAuditFailed", "assert_filter_ok", "audit_filter"]
WIDTH = 240  # room for the table in a failure message: a CI log does not wrap it


class FilterAuditFailed(AssertionError):
    """A filter that broke a promise in some case; ``report`` is the whole audit."""

    def __init__(self, report: AuditReport) -> None:
        shipped = [row for row in report.rows if not row.control]
        failed = sum(row.verdict == "fail" for row in shipped)
        causes = "; ".join(finding.cause for finding in report.findings)
        headline = f"{report.target} fails {failed} of {len(shipped)} cases: {causes}"
        super().__init__(f"{headline}\n\n{report_text(report)}")
        self.report = report


def audit_filter(
    build: Callable[..., Any],
    *,
    takes: str = "rate",
    index: str | None = None,
    bits: str | None = None,
    families: Sequence[str] | None = None,
    seed: int = 0,
    queries: int = QUERIES,
    alpha: float = ALPHA,
    name: str | None = None,
) -> AuditReport:
    """Audit the filters ``build`` makes, at every size family (or the ``families`` named).

    ``build`` is a class or any factory: ``build(capacity, error_rate)`` with ``takes="rate"``, or
    ``build(m_bits, k)`` with ``takes="bits"``. ``index`` names its index function (item -> bit
    positions; ``bit_indexes`` is found without it); ``bits`` names the attribute holding its bits,
    where the audit should not watch for it. ``queries`` fresh items are asked per case; ``alpha`` is
    the chance that a filter keeping its promise still fails a statistical check (the tolerance);
    ``seed`` draws the items. A filter that cannot be built or driven raises ``TargetError``.
    """
    label = name or _name_of(build)
    target = AnyFilterTarget(build, label, Driving(takes, index, bits), families)
    return audit(target, seed=seed, queries=queries, alpha=alpha)


def assert_filter_ok(build: Callable[..., Any], **options: Any) -> AuditReport:
    """``audit_filter(build, **options)``, raising ``FilterAuditFailed`` when a case fails; the audit otherwise."""
    __tracebackhide__ = True  # pytest then shows the caller's line and the message, not this frame
    report = audit_filter(build, **options)
    if not report.passed:
        raise FilterAuditFailed(report)
    return report


def report_text(report: AuditReport, width: int = WIDTH) -> str:
    """The audit as the command prints it, in plain text: the table, each fault, each reproduction, the verdict."""
    out = io.StringIO()
    print_audit(Console(file=out, width=width, no_color=True, highlight=False, emoji=False), report)
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip().splitlines()) + "\n"


def _name_of(build: Callable[..., Any]) -> str:
    module, name = getattr(build, "__module__", ""), getattr(build, "__qualname__", type(build).__name__)
    return f"{module}:{name}" if module else name
