"""The reference implementation (impl/corpus), imported from the root this installation carries."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

from dedup_harness.core.paths import IMPL_ROOT, ORACLE_DIR


def load(module: str = "corpus.dedup") -> ModuleType:
    """Import ``module`` from the reference root (put first on ``sys.path`` if it is not there yet)."""
    root = str(IMPL_ROOT)
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module(module)


REFERENCE_STAGE = "dedup_harness_reference_stage"  # the reference's stage, once loaded beside another root's
ORACLE = "oracle"
_loaded: dict[str, ModuleType] = {}


def reference_stage() -> ModuleType:
    """The reference's ``corpus.dedup``, with the reference's own doc, hashing and filter, in any process.

    When another root's ``corpus`` is the one imported here (a submission's, or a mutant's that
    changed the filter), the reference's package is imported for a moment in its place and the
    other root's modules are put back after: the reference keeps what it bound as it was imported.
    """
    if REFERENCE_STAGE not in _loaded:
        saved = {name: module for name, module in sys.modules.items() if name == "corpus" or name.startswith("corpus.")}
        for name in saved:
            del sys.modules[name]
        sys.path.insert(0, str(IMPL_ROOT))
        try:
            _loaded[REFERENCE_STAGE] = importlib.import_module("corpus.dedup")
        finally:
            sys.path.remove(str(IMPL_ROOT))
            for name in [n for n in sys.modules if n == "corpus" or n.startswith("corpus.")]:
                del sys.modules[name]
            sys.modules.update(saved)
    return _loaded[REFERENCE_STAGE]


def oracle() -> ModuleType:
    """The set-based oracle (``oracle/`` beside the reference root)."""
    spec = importlib.util.spec_from_file_location(ORACLE, ORACLE_DIR / "__init__.py")
    if ORACLE in sys.modules:
        return sys.modules[ORACLE]
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[ORACLE] = module
    spec.loader.exec_module(module)
    return module
