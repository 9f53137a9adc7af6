"""The Gradescope autograder bundle: a zip with ``setup.sh`` and ``run_autograder`` at its root.

Gradescope runs every submission in its own container; the bundle is all it needs, the network
included: it carries exactly what was tested here (``bundle_wheels.py``): this harness's wheel (the
package with its ``_data``: the reference, the suite, the fixture, the mutants; built from a checkout
or from an installed copy alike), the wheel of every release of the installed dependency set for
the image's Python, ``requirements.lock`` with their hashes, and ``provenance.json`` (the harness's
version, that Python, the releases and their digest). With ``--allow``, the packages a course allows
come too, pinned like the rest (the releases installed here, and what they require), and
``allowed.txt`` names them, one a line, for both scripts to pass to ``grade --allow``. With
``--hidden-seed``, ``hidden-seed.txt`` holds the course's seed for ``run_autograder`` to pass to
``grade --hidden-seed`` (the bundle is staff's: students see none of it); with ``--own-deps``,
``own-deps.txt`` (``core/paths.OWN_DEPS_MARK``) has it pass ``grade --own-deps``. The two
scripts live beside this module (``gradescope_scripts/``), each saying what it does: ``setup.sh``
gets that Python, bubblewrap where it can, installs the wheels without an index where the worker's
uid cannot read them, checks the installed set against the digest and grades the bundled reference
once (a setup that cannot grade fails the build, never a student's grade); ``run_autograder``
grades ``$ROOT/submission`` into ``$ROOT/results/results.json`` (``ROOT`` is ``/autograder`` unless
``DEDUP_HARNESS_AUTOGRADER_ROOT`` says otherwise, which is how the tests run it). The zip's entries
are sorted, with fixed timestamps.
"""

from __future__ import annotations

import json
import stat
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from dedup_harness.core import scratch_dirs
from dedup_harness.core.paths import OWN_DEPS_MARK
from dedup_harness.core.provenance import provenance
from dedup_harness.distribution import bundle_wheels, source_tree
from dedup_harness.grade.sandbox.packages import gathered, release

SOURCE = "dedup-harness"  # the harness's source tree, staged to build its wheel
WHEELS = "wheels"  # the folder in the zip holding every wheel setup.sh installs
STAMP = (1980, 1, 1, 0, 0, 0)

SCRIPTS = Path(__file__).with_name("gradescope_scripts")  # setup.sh and run_autograder, as shipped
ALLOWED = "allowed.txt"  # the packages submissions may import, one a line (read by both scripts)
HIDDEN_SEED = "hidden-seed.txt"  # the course's seed for the cases it holds back (read by run_autograder)


def python_now() -> str:
    """This interpreter's version as "3.11": the one the tests ran on, so the one the bundle targets."""
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def build(out: Path, **options: Any) -> int:
    """Write the bundle to ``out`` (``contents``' options); returns its file count."""
    return _write_zip(out, contents(**options))


def contents(
    *,
    weights: Path | None = None,
    python: str | None = None,
    allowed: Sequence[str] = (),
    hidden_seed: int | None = None,
    own_deps: bool = False,
) -> list[tuple[str, bytes, bool]]:
    """The files (name, bytes, executable) for CPython ``python`` (default: this one), ``allowed``, ``hidden_seed``
    and the course's decision to grade the student's own modules (``own_deps``)."""
    python = python or python_now()
    tested = provenance(python)  # a dependency that is not installed here is a LookupError
    names = sorted({str(canonicalize_name(name)) for name in allowed})
    extra = [release(distribution) for distribution in gathered(names, python)] if names else []
    with tempfile.TemporaryDirectory(prefix=scratch_dirs.prefix("bundle")) as scratch:
        source, wheels = Path(scratch) / SOURCE, Path(scratch) / WHEELS
        stage_source(source)
        bundle_wheels.gather(tuple(sorted({*tested.dependencies, *extra})), python, source, wheels)
        entries: list[tuple[str, bytes, bool]] = [
            ("setup.sh", (SCRIPTS / "setup.sh").read_bytes(), True),
            ("run_autograder", (SCRIPTS / "run_autograder").read_bytes(), True),
            ("requirements.lock", bundle_wheels.lock(wheels).encode(), False),
            ("provenance.json", _provenance_json(tested.version, python, tested.dependencies, tested.digest), False),
        ]
        entries += [(f"{WHEELS}/{w.name}", w.read_bytes(), False) for w in sorted(wheels.glob("*.whl"))]
    if weights is not None:
        entries.append(("weights.toml", weights.read_bytes(), False))
    if names:
        entries.append((ALLOWED, "".join(f"{name}\n" for name in names).encode(), False))
    if hidden_seed is not None:
        entries.append((HIDDEN_SEED, f"{hidden_seed:032x}\n".encode(), False))
    if own_deps:
        entries.append((OWN_DEPS_MARK, b"grade --own-deps\n", False))
    return entries


def stage_source(folder: Path) -> None:
    """The harness's source tree in its installed layout, with a build file: what its wheel is built from."""
    readme = "The dedup-harness grader, bundled for Gradescope.\n"
    source_tree.stage_source(folder, source_tree.package_files(), readme=readme, plugin=False)


def _provenance_json(version: str, python: str, dependencies: tuple[str, ...], digest: str) -> bytes:
    document = {"harness_version": version, "python": python, "dependencies": list(dependencies), "digest": digest}
    return (json.dumps(document, indent=2) + "\n").encode()


def _write_zip(out: Path, entries: list[tuple[str, bytes, bool]]) -> int:
    """The zip at ``out`` (the command's part file: it is renamed into place when the run succeeds)."""
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data, executable in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=STAMP)
            info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return len(entries)
