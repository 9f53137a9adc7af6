"""What ``--impl`` names, taken as ``check`` takes a path: an implementation root, a dedup.py, or its folder.

An *implementation root* is a folder holding a ``corpus/`` package; the suite imports ``corpus`` from
it as it is. A student's ``dedup.py`` (the file itself, or a folder holding it directly or in
``corpus/``, the two places ``check`` looks) is not a root: it is put into a scratch root beside the
reference's ``doc``, ``hashing`` and ``bloom``, the root ``grade`` and ``check`` build for a
submission (``reference_without_dedup``). Anything else is refused with one sentence saying what
``--impl`` takes.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.core.paths import IMPL_ROOT

DEDUP = "dedup.py"
TAKES = "an implementation root (a folder holding corpus/), a dedup.py, or a folder holding one"


class NotAnImplementation(ValueError):
    """The path names nothing the suite can run against; the message says what it is and what is taken."""


@dataclass(frozen=True)
class UnderTest:
    """What a suite run checks: the root it imports ``corpus`` from, and what the caller named."""

    root: Path
    given: str | None = None  # the path as --impl gave it; None: not given, the reference
    source: Path | None = None  # the student's dedup.py, when ``root`` is a scratch root built around it

    def describe(self) -> str:
        """In words, for a run's header: what was named and what runs."""
        if self.given is None:
            return f"the reference, {self.root} (no --impl given)"
        if self.source is None:
            return f"--impl {self.given}: the implementation root {self.root}"
        beside = "with the reference's doc, hashing and bloom"
        return f"--impl {self.given}: {self.source}, in the scratch root {self.root} ({beside})"


def classify(path: Path) -> tuple[Path | None, Path | None]:
    """``(root, None)`` for an implementation root, ``(None, dedup_py)`` for a student's file."""
    if path.is_dir():
        if (path / "corpus" / "__init__.py").is_file():
            return path.resolve(), None
        for place in (path / DEDUP, path / "corpus" / DEDUP):
            if place.is_file():
                return None, place.resolve()
        raise NotAnImplementation(f"{path}: a folder with no corpus/ package and no {DEDUP}; --impl takes {TAKES}")
    if path.is_file():
        if path.suffix != ".py":
            raise NotAnImplementation(f"{path}: not a Python file; --impl takes {TAKES}")
        return None, path.resolve()
    raise NotAnImplementation(f"{path}: no such file or folder; --impl takes {TAKES}")


def reference_without_dedup(folder: Path) -> Path:
    """``folder/root``: a copy of the reference root without its ``corpus/dedup.py``, for a student's to go in."""
    root = folder / "root"
    shutil.copytree(IMPL_ROOT, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", DEDUP), dirs_exist_ok=True)
    return root


def under_test(given: str | None, scratch: Callable[[], Path]) -> UnderTest:
    """What ``--impl given`` names; a student's file goes into a scratch root made in the folder ``scratch()`` gives."""
    if given is None:
        return UnderTest(IMPL_ROOT.resolve())
    root, source = classify(Path(given))
    if root is not None:
        return UnderTest(root, given)
    assert source is not None
    built = reference_without_dedup(scratch())
    shutil.copyfile(source, built / "corpus" / DEDUP)
    return UnderTest(built.resolve(), given, source)
