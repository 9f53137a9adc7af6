"""Third-party filters: skipped when absent from a plain run, required in the `audit` tox env."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

from dedup_harness.bloom_audit.model import AuditReport

REQUIRED = os.environ.get("DEDUP_HARNESS_REQUIRE_THIRD_PARTY") == "1"


def require(module: str) -> ModuleType:
    """The module, or a skip when it is not installed; in the audit env (the variable set) an import error fails."""
    if REQUIRED:
        return importlib.import_module(module)
    # tests/conftest.py counts this skip by its words, and a plain run's last lines say so
    return pytest.importorskip(module, reason=f"{module} is installed by `tox -e audit`")


def unreproduced(report: AuditReport) -> set[str]:
    """The faults an audit found that have no recorded reproduction."""
    found = {finding.cause for finding in report.findings + report.notes}
    return found - {reproduction.cause for reproduction in report.reproductions}
