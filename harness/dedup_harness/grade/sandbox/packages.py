"""The packages a course allows (``--allow``): a copy of their installed files that every worker reads.

The worker runs with ``-I -S``. For each allowed package the run copies once the installed files of
that distribution and of what it requires (recursively, markers read as the worker's Python reads
them) into scratch every worker's user can read, last on its ``sys.path`` (so neither the standard
library nor ``corpus`` is shadowed) and read-only in every tier. A copy, not the grader's folders:
those may be closed to the worker's user (a Gradescope image's venv is), and they hold the harness.

The worker's interpreter is usually not the grader's, so a release whose Python requirement or
extension modules exclude the worker's version is refused in one line before anything is graded, and
the preflight imports each allowed package in a worker of the batch's tier (``worker/probe.py``). The
bytecode copied keeps its sources' times, so the worker need not compile it.
"""

from __future__ import annotations

import compileall
import contextlib
import importlib.metadata
import shutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

from dedup_harness.core import scratch_dirs
from dedup_harness.core.provenance import PROJECT, closure
from dedup_harness.grade.sandbox.folder import readable_by_all, session_parent
from dedup_harness.grade.sandbox.interpreter import Interpreter, ask
from dedup_harness.grade.sandbox.users import worker_uid
from dedup_harness.grade.worker import imports

KIND = "packages"  # the scratch folder's kind: dedup-harness-packages-<grader pid>.<start>-...


class PackagesError(RuntimeError):
    """An allowed package cannot be given to the worker; the message says which and why, in one line."""


@dataclass(frozen=True)
class Packages:
    """What a course allows, as the workers of one grade run find it."""

    folder: str  # the copy, last on every worker's sys.path
    allowed: tuple[str, ...]  # the distributions --allow named, canonical ("numpy")
    modules: tuple[str, ...]  # their top-level import names: what a submission may import beside the stdlib
    releases: tuple[str, ...]  # every distribution copied, theirs and what they need ("numpy==2.4.6")

    def in_force(self) -> str:
        """The report's line."""
        return (
            f"allowed packages: {', '.join(self.releases)}, copied from the grader's environment; the worker's "
            "path holds no other package of the grader's"
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Packages:
        """As ``WorkerSetup.from_json`` reads it back (JSON has lists where the fields are tuples)."""
        return cls(data["folder"], *(tuple(data[key]) for key in ("allowed", "modules", "releases")))


def modules_of(name: str) -> list[str]:
    """The top-level modules of the installed distribution ``name``; the name itself where it is not installed."""
    wanted = canonicalize_name(name)
    found = [
        top
        for top, owners in importlib.metadata.packages_distributions().items()
        if top.isidentifier() and any(canonicalize_name(owner) == wanted for owner in owners)
    ]
    return sorted(set(found)) or [wanted.replace("-", "_")]


def gathered(names: Sequence[str], python: str | None) -> list[importlib.metadata.Distribution]:
    """The allowed distributions and everything they require, as installed beside the grader, markers read
    as CPython ``python`` ("3.11"; None: this one) reads them."""
    for name in names:
        try:
            importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            raise PackagesError(
                f"--allow {name}: no such package is installed beside the grader ({sys.executable}); install it there"
            ) from None
    try:
        found = closure(list(names), "--allow", python)
    except LookupError as error:
        raise PackagesError(f"--allow: {error} beside the grader ({sys.executable})") from None
    if any(name == PROJECT for name, _ in found):
        raise PackagesError(f"--allow {', '.join(names)}: that would show the worker the harness's own files")
    return [distribution for _, distribution in found]


def release(distribution: importlib.metadata.Distribution) -> str:
    """``name==version``, the name canonical, as requirements.lock and the reports spell a release."""
    return f"{canonicalize_name(distribution.metadata['Name'])}=={distribution.version}"


def unsuitable(distribution: importlib.metadata.Distribution, interpreter: Interpreter) -> str | None:
    """Why the worker's interpreter cannot use ``distribution`` as installed here, or None."""
    named = f"{distribution.metadata['Name']} {distribution.version}"
    worker = f"the worker's {interpreter.path} ({interpreter.version})"
    needs = distribution.metadata["Requires-Python"]  # None where the release names none
    with contextlib.suppress(InvalidSpecifier):
        if needs and interpreter.version and interpreter.version not in SpecifierSet(needs):
            return f"{named} needs Python {needs}, and {worker} is not"
    for file in distribution.files or []:
        tag = _tag(file.name)
        if interpreter.suffixes and tag is not None and tag not in interpreter.suffixes:
            loads = ", ".join(interpreter.suffixes)
            return f"{named}'s {file} is built for another Python than {worker}, which loads {loads}"
    return None


def _tag(name: str) -> str | None:
    """The suffix that ties an extension module to one Python (``.cpython-311-x86_64-linux-gnu.so``,
    ``.abi3.so``), or None: shared libraries beside them (``libopenblas-1a2b.so``) carry none, and any
    interpreter maps them."""
    parts = name.split(".")
    tag = parts[-2] if len(parts) > 2 and parts[-1] == "so" else ""
    return f".{tag}.so" if tag.startswith(("cpython-", "pypy")) or tag == "abi3" else None


def copy_into(folder: Path, distributions: Sequence[importlib.metadata.Distribution]) -> None:
    """Each distribution's installed files under ``folder`` as they lie in site-packages (scripts left out).

    Times are kept (the bytecode stays valid for its sources); what lacks bytecode is compiled; then
    every file is made readable by all, every folder searchable.
    """
    for distribution in distributions:
        for file in distribution.files or []:
            source = Path(str(distribution.locate_file(file)))
            if file.is_absolute() or ".." in file.parts or not source.is_file():
                continue  # a script in the environment's bin/, or a file RECORD names that is not there
            target = folder / file
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    with contextlib.suppress(OSError):
        compileall.compile_dir(folder, quiet=2)
    readable_by_all(folder)


@contextlib.contextmanager
def provided(names: Sequence[str], interpreter_path: str) -> Iterator[Packages | None]:
    """The allowed packages, copied for this run's workers and removed when the block ends (None: none allowed)."""
    if not names:
        yield None
        return
    uid = worker_uid()
    interpreter = ask(interpreter_path, uid)
    if not isinstance(interpreter, Interpreter):
        raise PackagesError(f"--allow: the worker's interpreter cannot be asked what it loads: {interpreter}")
    asked = sorted({str(canonicalize_name(name)) for name in names})
    distributions = gathered(asked, ".".join(interpreter.version.split(".")[:2]) or None)
    for distribution in distributions:
        why = unsuitable(distribution, interpreter)
        if why is not None:
            raise PackagesError(f"--allow {', '.join(asked)}: {why}")
    with scratch_dirs.Scratch(KIND, session_parent(uid)) as scratch:
        copy_into(Path(scratch), distributions)
        modules = sorted({module for name in asked for module in modules_of(name)})
        yield Packages(scratch, tuple(asked), tuple(modules), tuple(map(release, distributions)))


def for_worker(packages: Packages | None, root: Path, *, own_copy: Path | None = None) -> dict[str, Any]:
    """The worker's settings for the allowed packages (empty: none): their folder, their modules, and those
    the submission at ``root`` imports, which the worker imports before its audit hook (that would
    otherwise note what they do as they load: ctypes, files of their own).

    ``own_copy``: a worker that shares the grader's uid with no namespace to show the run's folder
    read-only (a non-root grader in the landlock, seccomp or none tier) owns that folder's files, and
    Landlock does not stop an owner's chmod or utime: it could make numpy unreadable, or its bytecode
    stale, under a classmate. Such a worker gets a copy of its own at ``own_copy`` (in its session).
    """
    if packages is None:
        return {}
    folder = packages.folder
    if own_copy is not None:
        folder = str(shutil.copytree(packages.folder, own_copy, symlinks=True))  # times kept: bytecode stays valid
    try:
        source = (root / "corpus" / "dedup.py").read_bytes()  # decoded as Python decodes it (``imports.used``)
    except OSError:
        source = b""
    preload = imports.used(source, packages.modules)
    return {"path": folder, "allowed": list(packages.modules), "preload": preload}
