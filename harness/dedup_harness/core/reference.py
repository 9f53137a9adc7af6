"""The implementations this installation carries (impl/ and impl_external/), imported from their roots."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from dedup_harness.core.paths import IMPL_EXTERNAL_ROOT, IMPL_ROOT, ORACLE_DIR


def load(module: str = "corpus.dedup") -> ModuleType:
    """Import ``module`` from the reference root (put first on ``sys.path`` if it is not there yet)."""
    root = str(IMPL_ROOT)
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module(module)


ORACLE = "oracle"
_modules: dict[tuple[Path, str], ModuleType] = {}


def reference_stage() -> ModuleType:
    """The reference's ``corpus.dedup``, with the reference's own doc, hashing and filter, in any process."""
    return stage_of(IMPL_ROOT)


def external_stage() -> ModuleType:
    """The external-sort implementation's ``corpus.dedup`` (impl_external/), in any process."""
    return stage_of(IMPL_EXTERNAL_ROOT)


def course_bloom() -> ModuleType:
    """The course's ``corpus.bloom`` (the reference root's: the filter students are given), in any process.

    The trusted side replays the contract's filter with it; it needs no ``corpus.dedup`` beside it.
    """
    return module_of(IMPL_ROOT, "corpus.bloom")


def stage_of(root: Path) -> ModuleType:
    """``root``'s ``corpus.dedup``, imported with that root's own ``corpus`` package, once per process.

    When another root's ``corpus`` is the one imported here (the reference's, a submission's, or a
    mutant's that changed the filter), ``root``'s package is imported for a moment in its place and
    the other root's modules are put back after: the stage keeps what it bound as it was imported.
    Its documents are its own ``Doc`` class (``stage.Doc``), not the other root's.
    """
    return module_of(root, "corpus.dedup")


def module_of(root: Path, module: str) -> ModuleType:
    """``root``'s ``module`` (a module of its ``corpus`` package), imported as ``stage_of`` imports a stage."""
    key = (root.resolve(), module)
    if key not in _modules:
        saved = {name: loaded for name, loaded in sys.modules.items() if _is_corpus(name)}
        for name in saved:
            del sys.modules[name]
        sys.path.insert(0, str(key[0]))
        try:
            _modules[key] = importlib.import_module(module)
        finally:
            sys.path.remove(str(key[0]))
            for name in [n for n in sys.modules if _is_corpus(n)]:
                del sys.modules[name]
            sys.modules.update(saved)
    return _modules[key]


def _is_corpus(name: str) -> bool:
    return name == "corpus" or name.startswith("corpus.")


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
