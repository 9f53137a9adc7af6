"""What a submission may import: the standard library, ``corpus``, and the packages the course allows.

Both sides read it, so the rule and its words have one home: the grader finds refused ``import``
statements before any check runs (``refused_imports``; ``check`` says the same), and the worker says
those words when the submission reaches a refused module another way (``importlib``,
``__import__``). An import under ``try`` whose handler catches ImportError is the submission's own
fallback, not refused. The allowed packages' copies (``grade/sandbox/packages.py``) go last on
``sys.path``. Standard library only: this package runs inside the sandbox.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

OWN = "corpus"  # the submission's own package: the reference's doc, hashing and bloom beside its dedup.py
CATCHES_IMPORT_ERROR = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def refused(module: str, allowed: Collection[str]) -> bool:
    """Is the top-level name of ``module`` neither the standard library's, nor ``corpus``, nor allowed?"""
    top = module.partition(".")[0]
    return bool(top) and top != OWN and top not in sys.stdlib_module_names and top not in allowed


def words(module: str) -> str:
    """The one line a student reads for a refused import."""
    return f"imports {module.partition('.')[0]}, which this course does not allow"


@dataclass(frozen=True)
class Imported:
    """One ``import`` statement's module: its top-level name, its line, and whether a handler catches its failure."""

    top: str
    line: int
    guarded: bool


def imported(source: str | bytes) -> list[Imported]:
    """Every absolute import in ``source``, anywhere in it, in the order they appear; empty when it does not parse.

    ``source`` is walked without recursion (a 1,200-term sum is a tree 1,200 deep), each node once: at
    most the nodes of a source the size limit lets in. Whatever parsing it raises (a ``RecursionError``
    or the parser's ``MemoryError`` for a source nested too deeply) is the compile's problem to say.
    """
    try:
        tree = ast.parse(source)
    except Exception:
        return []
    found: list[Imported] = []
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]  # (node, guarded), the next to visit last
    while stack:
        node, guarded = stack.pop()
        if isinstance(node, ast.Import):
            found += (Imported(alias.name.partition(".")[0], node.lineno, guarded) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(Imported(node.module.partition(".")[0], node.lineno, guarded))
        stack += reversed(_children(node, guarded))
    return found


def _children(node: ast.AST, guarded: bool) -> list[tuple[ast.AST, bool]]:
    """``node``'s children in source order, each with whether a handler catches its import's failure."""
    if isinstance(node, ast.Try | ast.TryStar):
        inner = guarded or any(_catches_import_error(handler) for handler in node.handlers)
        rest: list[ast.AST] = [*node.handlers, *node.orelse, *node.finalbody]
        return [*((statement, inner) for statement in node.body), *((other, guarded) for other in rest)]
    return [(child, guarded) for child in ast.iter_child_nodes(node)]


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    """A bare ``except``, or one naming ImportError (or a class above it), alone or in a tuple."""
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(name, ast.Name) and name.id in CATCHES_IMPORT_ERROR for name in names)


def refused_imports(source: str | bytes, allowed: Collection[str]) -> list[Imported]:
    """The first unguarded import of each refused module, in the order they appear."""
    found: dict[str, Imported] = {}
    for each in imported(source):
        if not each.guarded and refused(each.top, allowed):
            found.setdefault(each.top, each)
    return sorted(found.values(), key=lambda each: each.line)


def used(source: str | bytes, allowed: Collection[str]) -> list[str]:
    """The allowed modules ``source`` imports anywhere (the worker imports them before its audit hook)."""
    return sorted({each.top for each in imported(source) if each.top in allowed})


def on_path(packages: dict[str, Any]) -> dict[str, Any]:
    """The worker's settings for the allowed packages, their folder put last on ``sys.path`` (so neither
    the standard library nor ``corpus`` can be shadowed by them)."""
    if packages.get("path"):
        sys.path.append(packages["path"])
    return packages


def folders(packages: dict[str, Any]) -> list[str]:
    """The allowed packages' folder, as the worker's audit hook lists the folders it reads without a note."""
    return [os.path.realpath(packages["path"])] if packages.get("path") else []


def before_hook(packages: dict[str, Any]) -> None:
    """Just before the audit hook: import the allowed packages the submission imports (what they do as they
    load, ctypes and files of their own, is not the submission's doing), then forget ctypes (which they
    and the confinement loaded), so a submission's own ``import ctypes`` loads it afresh and the hook
    sees it."""
    for name in packages.get("preload", []):
        __import__(name)
    for name in [name for name in sys.modules if name == "ctypes" or name.startswith("ctypes.")]:
        del sys.modules[name]


def in_course_words(error: BaseException, packages: dict[str, Any]) -> BaseException:
    """A ModuleNotFoundError for a module the course does not allow, as the course's rule says it (no
    traceback); any other error as it is."""
    name = getattr(error, "name", None) if isinstance(error, ModuleNotFoundError) else None
    return ImportError(words(name)) if name and refused(name, packages.get("allowed", [])) else error
