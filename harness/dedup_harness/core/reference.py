"""The reference implementation (impl/corpus), imported from the root this installation carries."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from dedup_harness.core.paths import IMPL_ROOT


def load(module: str = "corpus.dedup") -> ModuleType:
    """Import ``module`` from the reference root (put first on ``sys.path`` if it is not there yet)."""
    root = str(IMPL_ROOT)
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module(module)
