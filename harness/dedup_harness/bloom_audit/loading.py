"""What ``module:Class`` or ``path/to/file.py:Class`` names: the class (or factory) audit-bloom builds filters with.

A module name is imported as ``python -m`` would, with the current folder first on ``sys.path``. A file
is imported by its place: when its folder is a package (it holds ``__init__.py``), the outermost such
package's parent goes on ``sys.path`` and the file is imported by its dotted name, so its relative
imports work; otherwise its own folder does. Either way, a failed import says what was searched.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from dedup_harness.bloom_audit.target import TargetError

FORMS = "module:Class or path/to/file.py:Class"


@dataclass(frozen=True)
class Located:
    """Where a filter's constructor was found: the module, the folder put on sys.path for it, and the name."""

    module: str
    folder: Path  # what goes first on sys.path to import ``module``
    name: str  # the class or factory inside the module, dotted for a nested class
    file: Path | None = None  # the file the spec named, for ``path/to/file.py:Class``


def is_spec(text: str) -> bool:
    """Whether ``text`` has the form ``module:Class`` or ``path/to/file.py:Class``."""
    where, _, name = text.rpartition(":")
    return bool(where and name)


def load(spec: str) -> tuple[Any, Located]:
    """The callable ``spec`` names, and where it was found; ``TargetError`` saying what was searched if none."""
    where, _, name = spec.rpartition(":")
    if not where or not name:
        raise TargetError(f"{spec!r} is not of the form {FORMS}")
    located = _locate_file(spec, where, name) if _is_path(where) else Located(where, Path.cwd(), name)
    module = _import(spec, located)
    built: Any = module
    for part in name.split("."):
        built = getattr(built, part, None)
    if not callable(built):
        raise TargetError(f"{located.module!r} ({module.__file__}) has no class or function {name!r}")
    return built, located


def _is_path(where: str) -> bool:
    return where.endswith(".py") or os.sep in where or "/" in where


def _locate_file(spec: str, where: str, name: str) -> Located:
    path = Path(where).expanduser().resolve()
    if not path.is_file():
        raise TargetError(f"{spec!r}: no file {path} (paths are read from {Path.cwd()})")
    if path.suffix != ".py":
        raise TargetError(f"{spec!r}: {path} is not a .py file")
    parts = [path.stem] if path.stem != "__init__" else []
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return Located(".".join(parts), folder, name, path)


def _import(spec: str, located: Located) -> ModuleType:
    if str(located.folder) not in sys.path:
        sys.path.insert(0, str(located.folder))
    try:
        module = importlib.import_module(located.module)
    except ModuleNotFoundError as exc:
        searched = "; ".join(entry or "(the current folder)" for entry in sys.path)
        raise TargetError(
            f"cannot import {located.module!r} for {spec!r}: {exc} (searched sys.path: {searched}); "
            f"run from the folder that holds it, or name its file: path/to/file.py:{located.name}"
        ) from exc
    except Exception as exc:  # the module's own code failed: say where, it is the caller's to fix
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        raise TargetError(
            f"importing {located.module!r} for {spec!r} failed at {frame.filename}:{frame.lineno}: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    _same_file(spec, located, module)
    return module


def _same_file(spec: str, located: Located, module: ModuleType) -> None:
    """A file named by its path must be the module imported, not another of the same name seen first."""
    if located.file is None or not module.__file__:
        return
    found = Path(module.__file__).resolve()
    if found != located.file:
        raise TargetError(f"{spec!r}: a module named {located.module!r} was already imported from {found}")
