"""What produced a report: this harness's version and a digest of the dependency set installed beside it.

Two installations with the same digest run the same releases of every package the harness imports at
run time, its dependencies' dependencies included: a Hypothesis release changes what ``derandomize``
draws, so a grade is only reproducible within one digest. The set is the closure of the project's
runtime requirements (extras left out, environment markers evaluated here), as ``name==version``
lines, sorted; the digest is their SHA-256.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import tomllib
from dataclasses import dataclass

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from dedup_harness import __version__
from dedup_harness.core.paths import DATA_ROOT

PROJECT = "dedup-harness"


@dataclass(frozen=True)
class Provenance:
    version: str  # this harness's
    dependencies: tuple[str, ...]  # "name==version", sorted by name
    digest: str  # "sha256:" and 64 hex digits over the lines above

    def line(self) -> str:
        """For people: one line naming both."""
        return f"dedup-harness {self.version}, dependencies {self.digest[:19]} ({len(self.dependencies)} packages)"


def runtime_requirements() -> list[str]:
    """The project's own runtime requirements: from pyproject.toml in a checkout, else the installed metadata."""
    project = DATA_ROOT / "pyproject.toml"
    if project.is_file():
        return list(tomllib.loads(project.read_text(encoding="utf-8"))["project"]["dependencies"])
    return [r for r in importlib.metadata.requires(PROJECT) or [] if "extra ==" not in r]


def installed_closure(python_version: str | None = None) -> list[tuple[str, str]]:
    """(name, version) of every distribution the runtime requirements pull in, as installed here."""
    return [(name, found.version) for name, found in closure(runtime_requirements(), PROJECT, python_version)]


def closure(
    requirements: list[str], wanted_by: str, python_version: str | None = None
) -> list[tuple[str, importlib.metadata.Distribution]]:
    """(canonical name, distribution) of everything ``requirements`` pull in, as installed here, sorted.

    A requirement's extras pull in what the distribution requires for them (textual asks for
    markdown-it-py[linkify]). ``python_version`` ("3.12") evaluates markers as that interpreter would,
    for the same releases. A requirement that is not installed is a LookupError naming who asked for it
    (``wanted_by`` for the first ones).
    """
    environment = {key: str(value) for key, value in default_environment().items()}
    if python_version is not None:
        environment.update(python_version=python_version, python_full_version=python_version + ".0")
    found: dict[str, importlib.metadata.Distribution] = {}
    expanded: set[tuple[str, str]] = set()  # (distribution, extra) whose requirements are pending or done
    pending = [(r, wanted_by) for r in map(Requirement, requirements) if _applies(r, environment, "")]
    while pending:
        requirement, asker = pending.pop()
        name = canonicalize_name(requirement.name)
        try:
            distribution = importlib.metadata.distribution(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            raise LookupError(f"{requirement.name} (required by {asker}) is not installed") from None
        found[name] = distribution
        for extra in sorted({"", *requirement.extras} - {e for n, e in expanded if n == name}):
            expanded.add((name, extra))
            needs = map(Requirement, distribution.requires or [])
            pending += [(r, name) for r in needs if _applies(r, environment, extra)]
    return sorted(found.items())


def _applies(requirement: Requirement, environment: dict[str, str], extra: str) -> bool:
    """Does ``requirement`` hold here, for a distribution asked for with ``extra`` ("" for none)?"""
    return requirement.marker is None or requirement.marker.evaluate(environment | {"extra": extra})


def provenance(python_version: str | None = None) -> Provenance:
    """This harness's version and its installed dependency set (markers as ``python_version`` reads them)."""
    lines = tuple(f"{name}=={version}" for name, version in installed_closure(python_version))
    digest = "sha256:" + hashlib.sha256("".join(line + "\n" for line in lines).encode("ascii")).hexdigest()
    return Provenance(__version__, lines, digest)


@functools.cache
def here() -> Provenance:
    """This installation's provenance, worked out once per process (it reads every package's metadata)."""
    return provenance()


def main() -> None:
    """``python -m dedup_harness.core.provenance``: the installed set as JSON (setup.sh checks its digest)."""
    found = provenance()
    document = {"harness_version": found.version, "dependencies": list(found.dependencies), "digest": found.digest}
    print(json.dumps(document))


if __name__ == "__main__":
    main()
