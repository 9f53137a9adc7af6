"""The power instrument's mutants: the extra mutants of ``mutants.toml`` and the lossy identities, as scratch roots.

An extra mutant is the reference with one exact piece of text replaced in one file. They are kept out
of the catalogue (``mutants/``) on purpose: verify, the grader's diagnosis and the kill matrix never
see them; they only measure how much each check kills. Check 13's mutants are not copied here: the
lossy identities of ``tests/harness/test_lossy_identities.py`` are taken from that file as they are.

This module imports nothing of the benchmarks beside it, so the harness's tests load it by path.
"""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.mutant_roots import copy_root
from dedup_harness.core.paths import IMPL_ROOT, TESTS_DIR

DATA_FILE = Path(__file__).with_name("mutants.toml")
LOSSY_FILE = TESTS_DIR / "harness" / "test_lossy_identities.py"
FIELDS = ("name", "check", "file", "old", "new", "bug")


class MutantError(ValueError):
    """The data file is malformed, or a mutant no longer applies to the reference. The message names it."""


@dataclass(frozen=True)
class ExtraMutant:
    """One extra mutant: in ``file`` (under the reference root), ``old`` becomes ``new``."""

    name: str
    check: str  # the check whose pitfall the bug belongs to: the check that must kill it
    file: str
    old: str
    new: str
    bug: str

    def mutated(self, reference: str) -> str:
        """The file's text with the replacement made; ``old`` must occur exactly once in ``reference``."""
        found = reference.count(self.old)
        if found != 1:
            raise MutantError(f"extra mutant {self.name}: its old text occurs {found} times in {self.file}, not once")
        return reference.replace(self.old, self.new)

    def build(self, dest: Path, reference: Path = IMPL_ROOT) -> Path:
        """``dest`` becomes a copy of the reference root with the replacement made."""
        copy_root(reference, dest)
        source = dest / self.file
        source.write_text(self.mutated(source.read_text(encoding="utf-8")), encoding="utf-8")
        return dest


def load_mutants(path: Path = DATA_FILE, *, checks: tuple[str, ...] = CHECKS) -> list[ExtraMutant]:
    """Every entry of the data file, in file order; raises MutantError naming what is wrong."""
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("mutant")
    if not isinstance(entries, list) or not entries:
        raise MutantError(f"{path}: expected [[mutant]] entries")
    mutants = [_entry(path, n, entry, checks) for n, entry in enumerate(entries)]
    names = [m.name for m in mutants]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise MutantError(f"{path}: names used twice: {repeated}")
    return mutants


def _entry(path: Path, n: int, entry: object, checks: tuple[str, ...]) -> ExtraMutant:
    if not isinstance(entry, dict):
        raise MutantError(f"{path}: entry {n} is not a table")
    where = f"{path}: mutant {entry.get('name', n)!r}"
    wrong = [key for key in FIELDS if not isinstance(entry.get(key), str) or not entry[key]]
    unknown = sorted(set(entry) - set(FIELDS))
    if wrong or unknown:
        raise MutantError(f"{where}: fields missing or empty: {wrong}; fields unknown: {unknown}")
    if entry["check"] not in checks:
        raise MutantError(f"{where}: names no check of the registry: {entry['check']!r}")
    if entry["old"] == entry["new"]:
        raise MutantError(f"{where}: old and new are the same text")
    return ExtraMutant(**{key: entry[key] for key in FIELDS})


@dataclass(frozen=True)
class Target:
    """A root the power run measures: an extra mutant or a lossy identity, the check it targets, its bug."""

    name: str
    check: str
    bug: str
    source: str  # where it is written down: the data file or the lossy identities' test
    build: Callable[[Path], Path]  # makes the root at the given (absent) folder and returns it


def lossy_module() -> ModuleType:
    """tests/harness/test_lossy_identities.py, loaded by its path (it is a test module, not a package's)."""
    spec = importlib.util.spec_from_file_location("power_lossy_identities", LOSSY_FILE)
    if spec is None or spec.loader is None:
        raise MutantError(f"cannot load {LOSSY_FILE}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def lossy_targets() -> list[Target]:
    """The lossy identities, built by their own test's ``lossy_root``, each targeting the identity check."""
    lossy = lossy_module()

    def builder(key: str) -> Callable[[Path], Path]:
        def build(dest: Path) -> Path:
            dest.mkdir(parents=True)
            root: Path = lossy.lossy_root(dest, key)
            return root

        return build

    return [
        Target(
            f"identity-{_slug(key)}",
            lossy.CHECK,
            f"identifies a paragraph by a lossy key: {key}",
            "lossy",
            builder(key),
        )
        for key in lossy.LOSSY
    ]


def extra_targets(path: Path = DATA_FILE) -> list[Target]:
    return [Target(m.name, m.check, m.bug, "extra", m.build) for m in load_mutants(path)]


def all_targets(path: Path = DATA_FILE) -> list[Target]:
    """The extra mutants, then the lossy identities."""
    return extra_targets(path) + lossy_targets()


def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())
