"""Third-party filters: skipped when absent from a plain run, required in the `audit` tox env."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

REQUIRED = os.environ.get("DEDUP_HARNESS_REQUIRE_THIRD_PARTY") == "1"


def require(module: str) -> ModuleType:
    """The module, or a skip when it is not installed; in the audit env (the variable set) an import error fails."""
    if REQUIRED:
        return importlib.import_module(module)
    # tests/conftest.py counts this skip by its words, and a plain run's last lines say so
    return pytest.importorskip(module, reason=f"{module} is installed by `tox -e audit`")
