"""The implementations this installation carries (impl/ and impl_external/), and the course's own modules, each
imported from its root beside whatever ``corpus`` the process has imported.

The course's ``doc``, ``hashing`` and ``bloom`` (``course_module``) and the oracle are what the trusted side
computes its expectations with, in every install: the student kit holds them though it holds no
``corpus.dedup``. In a process that runs a student's code in-process (``check``), ``corpus`` may be the
student's own package, their own ``bloom.py`` included: the course's modules are then imported under
the course's ``corpus`` for a moment, and the student's put back.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
from collections.abc import Iterator
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
_imported: dict[tuple[Path, str], ModuleType] = {}
_packages: dict[Path, dict[str, ModuleType]] = {}  # each root's corpus modules imported beside another's


def reference_stage() -> ModuleType:
    """The reference's ``corpus.dedup``, with the reference's own doc, hashing and filter, in any process."""
    return stage_of(IMPL_ROOT)


def external_stage() -> ModuleType:
    """The external-sort implementation's ``corpus.dedup`` (impl_external/), in any process."""
    return stage_of(IMPL_EXTERNAL_ROOT)


def course_module(name: str) -> ModuleType:
    """The course's ``corpus.<name>`` (``doc``, ``hashing`` or ``bloom``), whatever ``corpus`` this process imported."""
    return module_of(IMPL_ROOT, f"corpus.{name}")


def stage_of(root: Path) -> ModuleType:
    """``root``'s ``corpus.dedup``, imported with that root's own ``corpus`` package, once per process.

    Its documents are its own ``Doc`` class (``stage.Doc``), not the other root's.
    """
    return module_of(root, "corpus.dedup")


def module_of(root: Path, module: str) -> ModuleType:
    """``root``'s ``module`` (a module of its ``corpus``), imported with that root's own package, once per process.

    When another root's ``corpus`` is the one imported here (the reference's, a submission's, or a
    mutant's that changed the filter), ``root``'s package is imported for a moment in its place and
    the other root's modules are put back after: the module keeps what it bound as it was imported.
    """
    key = (root.resolve(), module)
    if key not in _imported:
        with corpus_of(key[0]):
            _imported[key] = importlib.import_module(module)
    return _imported[key]


@contextlib.contextmanager
def corpus_of(root: Path) -> Iterator[None]:
    """While in the block, ``import corpus...`` imports ``root``'s package; the process's own comes back after.

    Where the process's ``corpus`` is ``root``'s already, nothing changes: its modules are the ones to use.
    """
    current = sys.modules.get("corpus")
    if current is not None and Path(current.__file__ or "").resolve().parent.parent == root:
        yield
        return
    saved = {name: module for name, module in sys.modules.items() if _is_corpus(name)}
    for name in saved:
        del sys.modules[name]
    sys.modules.update(_packages.get(root, {}))  # what this root's package imported before: one copy of each
    sys.path.insert(0, str(root))
    try:
        yield
    finally:
        sys.path.remove(str(root))
        _packages[root] = {name: module for name, module in sys.modules.items() if _is_corpus(name)}
        for name in _packages[root]:
            del sys.modules[name]
        sys.modules.update(saved)


def _is_corpus(name: str) -> bool:
    return name == "corpus" or name.startswith("corpus.")


def oracle() -> ModuleType:
    """The set-based oracle (``oracle/`` beside the reference root), built on the course's ``corpus.doc``.

    Loaded once per process, under its own name: the suite's ``import oracle`` then finds this one.
    """
    if ORACLE in sys.modules:
        return sys.modules[ORACLE]
    spec = importlib.util.spec_from_file_location(ORACLE, ORACLE_DIR / "__init__.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    with corpus_of(IMPL_ROOT.resolve()):
        sys.modules[ORACLE] = module
        spec.loader.exec_module(module)
    return module
