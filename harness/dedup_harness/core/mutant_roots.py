"""Mutant roots: a scratch copy of the reference with one mutant's diff applied, in this process.

The diffs are applied by whatthepatch, strictly: every hunk at the line its header names, with every
context and removed line as written (no fuzz, no search for a moved hunk: a diff whose context
changed is refused, never bent into a different meaning), all files of a diff or none. The ``#``
lines that head a diff and name its pitfall are not part of the patch. verify builds its mutant
targets here, and the grader builds the mutants it compares a submission's behaviour with; neither
needs git.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import whatthepatch
from whatthepatch.exceptions import WhatThePatchException

from dedup_harness.core.catalogue import Mutant
from dedup_harness.core.paths import IMPL_ROOT


class DiffDoesNotApply(RuntimeError):
    """A mutant's diff no longer applies to the reference. The message names the mutant."""

    def __init__(self, mutant_id: str, reason: str) -> None:
        super().__init__(f"mutant {mutant_id}: its diff no longer applies to the reference: {reason}")
        self.mutant_id = mutant_id
        self.reason = reason


def copy_root(source: Path, dest: Path) -> Path:
    """A scratch copy of an implementation root, without bytecode caches."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def patched_files(mutant_id: str, diff: str, root: Path) -> dict[Path, str]:
    """Each file the diff changes (paths ``a/corpus/...`` under ``root``) and its new text; nothing is written."""
    changed: dict[Path, str] = {}
    try:
        for patch in whatthepatch.parse_patch(diff):
            if patch.header is None or patch.changes is None:
                raise DiffDoesNotApply(mutant_id, "a part of the diff without a file header")
            target = root / patch.header.new_path.removeprefix("b/")
            if not target.is_file():
                raise DiffDoesNotApply(mutant_id, f"{patch.header.new_path}: no such file in the reference")
            lines = whatthepatch.apply_diff(patch, target.read_text(encoding="utf-8"))
            changed[target] = "\n".join(lines) + "\n"
    except WhatThePatchException as error:
        raise DiffDoesNotApply(mutant_id, str(error)) from None
    if not changed:
        raise DiffDoesNotApply(mutant_id, "the diff changes no file")
    return changed


def apply_diff(mutant_id: str, diff: Path, root: Path) -> None:
    """Apply ``diff`` inside ``root``: every file's hunks, or (when one does not apply) nothing at all."""
    for path, text in patched_files(mutant_id, diff.read_text(encoding="utf-8"), root).items():
        path.write_text(text, encoding="utf-8")


def mutant_root(mutant: Mutant, dest: Path, reference: Path = IMPL_ROOT) -> Path:
    """``dest`` becomes a copy of the reference with the mutant's diff applied."""
    copy_root(reference, dest)
    apply_diff(mutant.id, mutant.diff, dest)
    return dest
