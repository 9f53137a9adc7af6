"""The mutant catalogue: ``mutants/catalogue.toml``, one entry per hand-written mutant (docs/mutants.md).

Each entry names its id, a title and a pitfall written for a student ("drops Bloom positives without
confirming them"), the files its diff touches, ``caught_by`` (the checks that must fail on it) and ``added``
(why the course added a pitfall the chapter does not list). The catalogue is data; this module reads and validates it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.paths import MUTANTS_DIR

CATALOGUE_NAME = "catalogue.toml"


class CatalogueError(ValueError):
    """The catalogue is malformed: the message names the entry and the field."""


@dataclass(frozen=True)
class Mutant:
    id: str
    title: str
    pitfall: str
    files: tuple[str, ...]
    caught_by: tuple[str, ...]
    diff: Path  # the unified diff against the reference root
    added: str = ""  # why the course added this pitfall to the chapter's ("": one of the chapter's own)

    @property
    def summary(self) -> str:
        """One line for feedback: "s04: drops every Bloom positive without confirming it"."""
        return f"{self.id}: {self.pitfall}"


def load_catalogue(
    mutants_dir: Path = MUTANTS_DIR, *, checks: tuple[str, ...] = CHECKS, diffs: bool = True
) -> list[Mutant]:
    """Every catalogue entry, in file order; raises CatalogueError naming what is wrong.

    ``diffs=False`` reads the words alone, for an install that holds no mutant's diff (the student kit).
    """
    path = mutants_dir / CATALOGUE_NAME
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CatalogueError(f"no mutant catalogue at {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{path}: {exc}") from None
    entries = data.get("mutant")
    if not isinstance(entries, list) or not entries:
        raise CatalogueError(f"{path}: expected [[mutant]] entries")
    mutants = [_entry(path, n, entry, mutants_dir, checks, diffs) for n, entry in enumerate(entries)]
    ids = [m.id for m in mutants]
    if len(set(ids)) != len(ids):
        raise CatalogueError(f"{path}: duplicate mutant ids in {ids}")
    return mutants


def load_mutant(mutant_id: str, mutants_dir: Path = MUTANTS_DIR) -> Mutant:
    for mutant in load_catalogue(mutants_dir):
        if mutant.id == mutant_id:
            return mutant
    raise CatalogueError(f"no mutant {mutant_id!r} in {mutants_dir / CATALOGUE_NAME}")


def _entry(path: Path, n: int, entry: object, mutants_dir: Path, checks: tuple[str, ...], diffs: bool) -> Mutant:
    if not isinstance(entry, dict):
        raise CatalogueError(f"{path}: entry {n} is not a table")
    where = f"{path}: mutant {entry.get('id', n)!r}"
    for key in ("id", "title", "pitfall"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise CatalogueError(f"{where}: {key!r} must be a non-empty string")
    for key in ("files", "caught_by"):
        value = entry.get(key)
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise CatalogueError(f"{where}: {key!r} must be a non-empty list of strings")
    unknown = [name for name in entry["caught_by"] if name not in checks]
    if unknown:
        raise CatalogueError(f"{where}: caught_by names unknown checks {unknown}")
    diff = mutants_dir / f"{entry['id']}.diff"
    if diffs and not diff.is_file():
        raise CatalogueError(f"{where}: its diff {diff} is missing")
    return Mutant(
        id=entry["id"],
        title=entry["title"],
        pitfall=entry["pitfall"],
        files=tuple(entry["files"]),
        caught_by=tuple(entry["caught_by"]),
        diff=diff,
        added=str(entry.get("added", "")),
    )
