"""The API a filter's maintainers call: audit_filter returns the verdicts, assert_filter_ok fails with the table.

A filter named at module level is audited in a child process (under a fixed hash seed), each audit a new
interpreter: the masked and the correct filter are audited once each (module fixtures) for the tests that
only read those audits, and a child is started again only where a test changes what the child is asked.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dedup_harness.bloom_audit import testing
from dedup_harness.bloom_audit.model import AuditReport
from dedup_harness.bloom_audit.target import TargetError
from dedup_harness.bloom_audit.testing import FilterAuditFailed, assert_filter_ok, audit_filter

from . import shown_filters

NAME = shown_filters.__name__  # as pytest imported it: bloom.shown_filters from a checkout
FAST = {"families": ["power of two"], "queries": 4000}  # the defaults (every family, 20,000 queries) in the docs' test


@pytest.fixture(scope="module")
def masked() -> FilterAuditFailed:
    """What assert_filter_ok raises for a masked filter, audited once in a child; ``report`` is audit_filter's."""
    with pytest.raises(FilterAuditFailed) as raised:
        assert_filter_ok(shown_filters.MaskedBytesFilter, **FAST)
    return raised.value


@pytest.fixture(scope="module")
def kept() -> AuditReport:
    """assert_filter_ok's audit of a filter that keeps its promise (the default seed, 0), audited once in a child."""
    return assert_filter_ok(shown_filters.BytesFilter, **FAST)


@pytest.fixture(scope="module")
def varied() -> AuditReport:
    """The same filter at another seed and a looser tolerance, in one child: the seed changes the items (so what
    is delivered) and nothing tolerated, alpha what is tolerated and no item, so each test reads its own."""
    return audit_filter(shown_filters.BytesFilter, seed=4, alpha=0.05, **FAST)


def test_audit_filter_returns_each_cases_verdict_and_each_fault_with_its_reproduction(
    masked: FilterAuditFailed,
) -> None:
    report = masked.report
    assert [row.verdict for row in report.rows] == ["fail", "fail"]
    assert [f.cause for f in report.findings] == ["index reduced by a mask", "rate above its promise"]
    assert [r.cause for r in report.reproductions] == ["index reduced by a mask", "rate above its promise"]
    assert all(r.title.endswith("run here, it fails as the audit found") for r in report.reproductions)


def test_each_reproduction_fails_on_its_own_while_the_fault_is_there_and_passes_once_it_is_fixed(
    masked: FilterAuditFailed,
) -> None:
    for reproduction in masked.report.reproductions:
        masked = _run(reproduction.code)
        assert masked.returncode == 1 and "AssertionError" in masked.stderr, masked.stderr
        fixed = _run(reproduction.code.replace("MaskedBytesFilter", "BytesFilter"))
        assert fixed.returncode == 0, fixed.stderr


def _run(code: str) -> subprocess.CompletedProcess[str]:
    """The reproduction in a fresh interpreter, with the folder this test's package is imported from on its path."""
    root = Path(shown_filters.__file__).parents[len(NAME.split(".")) - 1]
    code = f"import sys\nsys.path.insert(0, {str(root)!r})\n" + code
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)


def test_assert_filter_ok_returns_the_audit_of_a_filter_that_keeps_its_promise(kept: AuditReport) -> None:
    assert kept.passed and kept.target == f"{NAME}:BytesFilter"


def test_its_failure_message_is_the_audits_table_its_faults_and_their_reproductions(masked: FilterAuditFailed) -> None:
    message = str(masked)
    lines = message.splitlines()
    name = f"{NAME}:MaskedBytesFilter"
    assert lines[0] == f"{name} fails 2 of 2 cases: index reduced by a mask; rate above its promise"
    assert any(line.startswith("┃ family") and "reachable" in line and "delivered" in line for line in lines)
    assert "  - index reduced by a mask (2 of 2 cases): power of two 1024" in message
    assert f"Reproduction of index reduced by a mask ({name}): power of two 1024" in message
    assert f"    from {NAME} import MaskedBytesFilter" in message
    assert lines[-1] == f"{name}: FAIL (2 of 2 cases)"
    assert all(line == line.rstrip() for line in lines) and "\x1b[" not in message  # plain text for a CI log
    assert isinstance(masked, AssertionError) and masked.report.findings


def test_a_factory_of_bits_and_hashes_is_audited_and_a_lambda_is_named_in_its_reproduction() -> None:
    report = audit_filter(lambda m, k: shown_filters.OneHashLess(m, k), takes="bits", **FAST)
    (reproduction,) = [r for r in report.reproductions if r.cause == "k off what it was given"]
    assert reproduction.code.startswith("# build: the factory the audit was given (")
    assert "bloom = build(1024, 7)\n" in reproduction.code and "assert bloom.k == 7" in reproduction.code


def test_the_seed_changes_the_items_and_the_same_seed_the_same_measurements(
    kept: AuditReport, varied: AuditReport
) -> None:
    def delivered(report: AuditReport) -> list[float | None]:
        return [row.delivered_rate for row in report.rows]

    again = audit_filter(shown_filters.BytesFilter, seed=0, **FAST)  # another child, the seed kept was audited at
    assert delivered(kept) == delivered(again) != delivered(varied)


def test_a_looser_tolerance_allows_fewer_false_positives(kept: AuditReport, varied: AuditReport) -> None:
    assert varied.rows[0].tolerated < kept.rows[0].tolerated


def test_what_cannot_be_built_or_driven_is_the_callers_error_before_any_case_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(TargetError, match="cannot be used as a Bloom filter: TypeError"):
        audit_filter(dict)  # said by the child, which imported dict and could not drive it
    monkeypatch.setattr(testing.subprocess, "run", lambda *args, **kwargs: pytest.fail("a child was started"))
    with pytest.raises(TargetError, match="takes='bytes': expected one of 'rate', 'bits'"):
        audit_filter(shown_filters.BytesFilter, takes="bytes")


def test_importing_the_helper_loads_the_audit_and_nothing_else_of_the_harness() -> None:
    code = "import sys, json, dedup_harness.bloom_audit.testing; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    ours = {name.split(".")[1] for name in loaded if name.startswith("dedup_harness.")}
    assert ours == {"bloom_audit", "core"}
    assert {name for name in loaded if name.startswith("dedup_harness.core.")} == {
        "dedup_harness.core.bloom_sizing",
        "dedup_harness.core.paths",
        "dedup_harness.core.reference",
    }
    assert "pytest" not in loaded and "_pytest" not in loaded
