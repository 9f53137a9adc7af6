"""What ``--impl`` names, taken as ``check`` takes a path: an implementation root, a dedup.py, or its folder; and
the scratch root a student's ``dedup.py`` runs in.

An *implementation root* holds a ``corpus/`` package, imported as it is. A student's ``dedup.py`` (the
file, or a folder holding it directly or in ``corpus/``: ``STUDENT_PLACES``) is put into a scratch
root beside the course's ``doc``, ``hashing`` and ``bloom`` (``reference_without_dedup``), or their own
from a ``corpus/`` beside it (``own_modules``) where the course grades with them: ``grade --own-deps``, and
``check`` and ``--impl`` in a kit built with it. Anything else is refused with one sentence saying what it takes.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.core.paths import IMPL_ROOT

DEDUP = "dedup.py"
TAKES = "an implementation root (a folder holding corpus/), a dedup.py, or a folder holding one"
STUDENT_PLACES = (Path(DEDUP), Path("corpus") / DEDUP)  # where check looks, in this order, from a folder
OWN_MODULES = ("doc", "hashing", "bloom")  # the course's earlier modules, which a student may have written too
YOURS, THE_COURSES = "yours", "the course's"


class NotAnImplementation(ValueError):
    """The path names nothing the suite can run against; the message says what it is and what is taken."""


@dataclass(frozen=True)
class UnderTest:
    """What a suite run checks: the root it imports ``corpus`` from, and what the caller named."""

    root: Path
    given: str | None = None  # the path as --impl gave it; None: not given, the reference
    source: Path | None = None  # the student's dedup.py, when ``root`` is a scratch root built around it
    own: tuple[str, ...] = ()  # the modules of OWN_MODULES that are the author's own, not the course's

    def describe(self) -> str:
        """In words, for a run's header: what was named and what runs."""
        if self.given is None:
            return f"the reference, {self.root} (no --impl given)"
        if self.source is None:
            return f"--impl {self.given}: the implementation root {self.root}" + (
                f" ({modules_words(self.own)})" if self.own else ""
            )
        return f"--impl {self.given}: {self.source}, in the scratch root {self.root} ({modules_words(self.own)})"


def modules_words(own: tuple[str, ...] | list[str]) -> str:
    """Which modules are whose, in words: "dedup.py and bloom.py yours; doc.py and hashing.py the course's"."""
    mine = ["dedup", *(name for name in OWN_MODULES if name in own)]
    course = [name for name in OWN_MODULES if name not in own]
    parts = [f"{_listed(mine)} {YOURS}"] + ([f"{_listed(course)} {THE_COURSES}"] if course else [])
    return "; ".join(parts)


def _listed(names: list[str]) -> str:
    files = [f"{name}.py" for name in names]
    return files[0] if len(files) == 1 else f"{', '.join(files[:-1])} and {files[-1]}"


def student_file(folder: Path) -> Path | None:
    """The dedup.py ``check`` takes in ``folder``: ``folder/dedup.py``, else ``folder/corpus/dedup.py``."""
    return next((folder / place for place in STUDENT_PLACES if (folder / place).is_file()), None)


def own_modules(dedup_py: Path) -> dict[str, Path]:
    """The student's own doc.py, hashing.py and bloom.py: in ``corpus/`` beside their dedup.py, or beside it when
    it lies in ``corpus/`` itself. Regular files only (a symbolic link is never taken)."""
    folder = dedup_py.parent if dedup_py.parent.name == "corpus" else dedup_py.parent / "corpus"
    found = {name: folder / f"{name}.py" for name in OWN_MODULES}
    return {name: path for name, path in found.items() if path.is_file() and not path.is_symlink()}


def classify(path: Path) -> tuple[Path | None, Path | None]:
    """``(root, None)`` for an implementation root, ``(None, dedup_py)`` for a student's file."""
    if path.is_dir():
        if (path / "corpus" / "__init__.py").is_file():
            return path.resolve(), None
        found = student_file(path)
        if found is not None:
            return None, found.resolve()
        raise NotAnImplementation(f"{path}: a folder with no corpus/ package and no {DEDUP}; --impl takes {TAKES}")
    if path.is_file():
        if path.suffix != ".py":
            raise NotAnImplementation(f"{path}: not a Python file; --impl takes {TAKES}")
        return None, path.resolve()
    raise NotAnImplementation(f"{path}: no such file or folder; --impl takes {TAKES}")


def reference_without_dedup(folder: Path, own: Mapping[str, bytes] | None = None) -> Path:
    """``folder/root``: a copy of the reference root without its ``corpus/dedup.py``, for a student's to go in;
    ``own`` gives the bytes of each of the student's own modules, put in place of the course's."""
    root = folder / "root"
    shutil.copytree(IMPL_ROOT, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", DEDUP), dirs_exist_ok=True)
    for name, data in (own or {}).items():
        (root / "corpus" / f"{name}.py").write_bytes(data)
    return root


def under_test(
    given: str | None, scratch: Callable[[], Path], *, own_deps: bool = False, own: tuple[str, ...] = ()
) -> UnderTest:
    """What ``--impl given`` names; a student's file goes into a scratch root made in the folder ``scratch()`` gives,
    beside their own modules where ``own_deps``. ``own``: for a root, the modules that are its author's own."""
    if given is None:
        return UnderTest(IMPL_ROOT.resolve())
    root, source = classify(Path(given))
    if root is not None:
        return UnderTest(root, given, own=own)
    assert source is not None
    theirs = own_modules(source) if own_deps else {}
    built = reference_without_dedup(scratch(), {name: p.read_bytes() for name, p in theirs.items()})
    shutil.copyfile(source, built / "corpus" / DEDUP)
    return UnderTest(built.resolve(), given, source, tuple(theirs))
