"""audit-bloom in a filter's own tests: ``assert_filter_ok(BloomFilter)`` in one line, or ``audit_filter``.

``assert_filter_ok`` raises ``FilterAuditFailed`` (an AssertionError: the table, the faults and their
reproductions) unless every case passed. A plain function, not a pytest plugin or fixture: nothing of
ours has to be loaded into the maintainer's run (it works with plugin autoloading off, and under
unittest); this module imports the audit and rich, nothing else of the harness. A filter named at
module level is audited in a child process under PYTHONHASHSEED=0 (``audit_own``, which the command
shares): Python salts ``hash()`` per process, so a filter hashing with it (rbloom's default) would give
other numbers in every run. A lambda or a local factory cannot be named to a child, and is audited here.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from rich.console import Console

from dedup_harness.bloom_audit.any_filter import FAMILIES, TAKES, Driving
from dedup_harness.bloom_audit.audit import audit
from dedup_harness.bloom_audit.binomial import ALPHA
from dedup_harness.bloom_audit.filter_checks import QUERIES
from dedup_harness.bloom_audit.filters import AnyFilterTarget, known_target, resolve_target
from dedup_harness.bloom_audit.model import AuditReport
from dedup_harness.bloom_audit.record import reports_of_json
from dedup_harness.bloom_audit.report import print_audit, to_json
from dedup_harness.bloom_audit.target import TargetError

__all__ = ["ALPHA", "FAMILIES", "QUERIES", "TAKES", "FilterAuditFailed", "assert_filter_ok", "audit_filter"]
WIDTH = 240  # room for the table in a failure message: a CI log does not wrap it
HASH_SEED = "0"
CHILD = "import sys; from dedup_harness.bloom_audit import testing; sys.exit(testing.child(*sys.argv[1:]))"
UNIMPORTABLE = 3  # the child's status when it cannot import the filter by its name


class FilterAuditFailed(AssertionError):
    """A filter that broke a promise in some case; ``report`` is the whole audit."""

    def __init__(self, report: AuditReport) -> None:
        shipped = [row for row in report.rows if not row.control]
        failed = sum(row.verdict == "fail" for row in shipped)
        causes = "; ".join(finding.cause for finding in report.findings or report.notes)
        headline = f"{report.target} fails {failed} of {len(shipped)} cases: {causes}"
        if not failed:  # nothing measured is no pass: the table says why each case is n/a
            headline = f"{report.target}: no case could be measured ({causes or 'every case n/a'})"
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
    driving = Driving(takes, index, bits)  # a wrong option is the caller's error, said before any child starts
    known = known_target(build, driving)  # a library's class: audited as the command's built-in target of that name
    if known is not None:
        cases = [case for case in known.cases() if families is None or case.family in families]
        return audit(known, cases=cases, seed=seed, queries=queries, alpha=alpha)
    target = AnyFilterTarget(build, name or _name_of(build), driving, families)
    module, qualname = getattr(build, "__module__", None), getattr(build, "__qualname__", "<")
    spec = _name_of(build) if module not in (None, "__main__") and "<" not in qualname else None  # a child imports it
    return audit_own(target, spec, seed=seed, queries=queries, alpha=alpha)


def audit_own(
    target: AnyFilterTarget, spec: str | None, *, seed: int = 0, queries: int = QUERIES, alpha: float = ALPHA
) -> AuditReport:
    """A filter of one's own, audited in a child that imports it by ``spec``, under the fixed hash seed.

    Audited here where the seed is fixed here already, or where no child can import it (``spec`` None: a
    lambda or a local factory), as the command does: its hashes then repeat only under a fixed seed.
    """
    options = {**asdict(target.driving), "families": target.families, "name": target.name}
    options |= {"seed": seed, "queries": queries, "alpha": alpha}
    fixed = os.environ.get("PYTHONHASHSEED") == HASH_SEED
    in_child = _audited_in_child(spec, options) if spec is not None and not fixed else None
    return in_child if in_child is not None else audit(target, seed=seed, queries=queries, alpha=alpha)


def _audited_in_child(spec: str, options: dict[str, Any]) -> AuditReport | None:
    """The audit run in a child under the fixed hash seed; None when the child cannot import the filter."""
    env = {**os.environ, "PYTHONHASHSEED": HASH_SEED, "PYTHONPATH": os.pathsep.join(sys.path)}
    argv = [sys.executable, "-c", CHILD, spec, json.dumps(options)]
    ran = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if ran.returncode == UNIMPORTABLE:
        return None
    last = (ran.stdout.splitlines() or [""])[-1]
    if not last.startswith("{"):
        raise TargetError(f"the audit's child failed:\n{ran.stderr[-3000:]}")
    return reports_of_json(json.loads(last))[0]


def child(spec: str, options: str) -> int:
    """The child's side: the audit of ``spec`` as one line of JSON."""
    given = json.loads(options)
    driving = Driving(given.pop("takes"), given.pop("index"), given.pop("bits"))
    try:
        target = resolve_target(spec, driving, given.pop("families"))
    except TargetError:  # it was built where the audit was asked for, so only its import by name can fail here
        return UNIMPORTABLE
    target.name = given.pop("name")
    print(json.dumps(to_json([audit(target, **given)], None)))
    return 0


def assert_filter_ok(build: Callable[..., Any], **options: Any) -> AuditReport:
    """``audit_filter(build, **options)``, raising ``FilterAuditFailed`` unless it passed; the audit when it did."""
    __tracebackhide__ = True  # pytest then shows the caller's line and the message, not this frame
    report = audit_filter(build, **options)
    if report.status != "pass":
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
