"""What verify runs the suite against: the canary, the reference, the external sort, every mutant, extra roots.

A target is an implementation root plus what the suite is expected to do with it. Mutant and canary
roots are scratch copies of the reference made inside a folder the caller owns (and removes).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from dedup_harness.core.catalogue import Mutant, load_catalogue
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.kill_matrix import kill_matrix_path
from dedup_harness.core.mutant_roots import DiffDoesNotApply, copy_root, mutant_root
from dedup_harness.core.paths import CANARY_SOURCE, IMPL_EXTERNAL_ROOT, IMPL_ROOT, MUTANTS_DIR, SUITE_DIR


class Kind(StrEnum):
    CANARY = "canary"  # always wrong: every check must fail
    REFERENCE = "reference"  # every check must pass (the reference, and the external sort beside it)
    MUTANT = "mutant"  # the checks its catalogue entry names must fail
    TARGET = "target"  # an extra root (--target): reported, no expectation


@dataclass(frozen=True)
class Layout:
    """Where the suite, the reference and the mutants live (the installed ones by default; tests use others)."""

    impl_root: Path = IMPL_ROOT
    external_root: Path | None = IMPL_EXTERNAL_ROOT  # None: no second implementation to verify
    suite_dir: Path = SUITE_DIR
    mutants_dir: Path = MUTANTS_DIR
    checks: tuple[str, ...] = CHECKS

    @property
    def kill_matrix_file(self) -> Path:
        return kill_matrix_path(self.mutants_dir)


@dataclass
class Target:
    name: str
    kind: Kind
    root: Path | None  # None when the mutant's diff no longer applies
    expected: tuple[str, ...] = ()  # the checks that must fail
    mutant: Mutant | None = None
    problem: str = ""  # why there is no root
    title: str = field(default="")


def build_targets(layout: Layout, scratch: Path, extra_roots: tuple[Path, ...] = ()) -> list[Target]:
    """The canary first, then the reference, the external sort, the catalogue's mutants and the extra roots."""
    canary = copy_root(layout.impl_root, scratch / "canary")
    shutil.copyfile(CANARY_SOURCE, canary / "corpus" / "dedup.py")
    targets = [
        Target("canary", Kind.CANARY, canary, expected=layout.checks, title="always wrong"),
        Target("reference", Kind.REFERENCE, layout.impl_root, title="the reference"),
    ]
    if layout.external_root is not None:
        targets.append(Target("external", Kind.REFERENCE, check_root(layout.external_root), title="the external sort"))
    for mutant in load_catalogue(layout.mutants_dir, checks=layout.checks):
        targets.append(_mutant_target(mutant, layout.impl_root, scratch / mutant.id))
    for n, root in enumerate(extra_roots, start=1):
        name = "target" if len(extra_roots) == 1 else f"target{n}"
        targets.append(Target(name, Kind.TARGET, root.resolve(), title=str(root)))
    return targets


def _mutant_target(mutant: Mutant, reference: Path, dest: Path) -> Target:
    try:
        root: Path | None = mutant_root(mutant, dest, reference)
        problem = ""
    except DiffDoesNotApply as exc:
        root, problem = None, str(exc)
    return Target(mutant.id, Kind.MUTANT, root, mutant.caught_by, mutant, problem, mutant.title)


def check_root(root: Path) -> Path:
    """An implementation root must hold a corpus/ package; raises ValueError naming the folder."""
    if not (root / "corpus" / "__init__.py").is_file():
        raise ValueError(f"{root}: not an implementation root (no corpus/__init__.py there)")
    return root
