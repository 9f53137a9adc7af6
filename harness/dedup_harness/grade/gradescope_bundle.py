"""The Gradescope autograder bundle: a zip with ``setup.sh`` and ``run_autograder`` at its root.

Gradescope runs every submission in its own container; the bundle is all it needs. It carries this
harness as an installable source tree in the installed layout (the package with its ``_data``: the
reference, the suite, the fixture, the mutants), so it can be built from a checkout or from an
installed copy alike. The two scripts live beside this module (``gradescope_scripts/``), each
saying what it does: ``setup.sh`` gets a Python >= 3.11, bubblewrap where it can, installs the
harness where the worker's uid cannot read it and grades the bundled reference once (a setup that
cannot grade fails the build, never a student's grade); ``run_autograder`` grades
``$ROOT/submission`` into ``$ROOT/results/results.json`` (``ROOT`` is ``/autograder`` unless
``DEDUP_HARNESS_AUTOGRADER_ROOT`` says otherwise, which is how the tests run it). The zip is
reproducible: sorted entries, fixed timestamps.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import stat
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

from dedup_harness import __version__
from dedup_harness.core.paths import DATA_ROOT, PACKAGE_DIR

SOURCE = "dedup-harness"  # the folder in the zip holding the installable source tree
DATA_FOLDERS = ("impl", "impl_external", "oracle", "mutants", "tests", "fixtures")
STAMP = (1980, 1, 1, 0, 0, 0)
SKIP = {"__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache"}

SCRIPTS = Path(__file__).with_name("gradescope_scripts")  # setup.sh and run_autograder, as shipped


def pyproject() -> str:
    """The bundled source tree's build file: the same name, version, dependencies and script."""
    dependencies = ", ".join(f'"{d}"' for d in runtime_dependencies())
    return (
        '[build-system]\nrequires = ["hatchling>=1.21"]\nbuild-backend = "hatchling.build"\n\n'
        f'[project]\nname = "dedup-harness"\nversion = "{__version__}"\nrequires-python = ">=3.11"\n'
        f"dependencies = [{dependencies}]\n\n"
        '[project.scripts]\ndedup-harness = "dedup_harness.cli:main"\n\n'
        '[tool.hatch.build.targets.wheel]\npackages = ["dedup_harness"]\n'
    )


def runtime_dependencies() -> list[str]:
    """What ``pip install`` of this project pulls in, without the extras."""
    project = DATA_ROOT / "pyproject.toml"
    if project.is_file():  # a checkout: the project file is the truth
        return list(tomllib.loads(project.read_text(encoding="utf-8"))["project"]["dependencies"])
    requires = importlib.metadata.requires("dedup-harness") or []
    return [r for r in requires if "extra ==" not in r]


def package_files() -> Iterator[tuple[str, Path]]:
    """(name in the zip, file on disk) for the package in its installed layout."""
    for path in _files(PACKAGE_DIR):
        relative = path.relative_to(PACKAGE_DIR)
        if relative.parts[0] != "_data":
            yield f"{SOURCE}/dedup_harness/{relative.as_posix()}", path
    for folder in DATA_FOLDERS:
        for path in _files(DATA_ROOT / folder):
            yield f"{SOURCE}/dedup_harness/_data/{folder}/{path.relative_to(DATA_ROOT / folder).as_posix()}", path


def _files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not SKIP.intersection(path.relative_to(folder).parts) and path.suffix != ".pyc":
            yield path


def build(out: Path, *, weights: Path | None = None) -> int:
    """Write the bundle to ``out``; returns the number of files in it."""
    entries: list[tuple[str, bytes, bool]] = [
        ("setup.sh", (SCRIPTS / "setup.sh").read_bytes(), True),
        ("run_autograder", (SCRIPTS / "run_autograder").read_bytes(), True),
        (f"{SOURCE}/pyproject.toml", pyproject().encode(), False),
        (f"{SOURCE}/README.md", b"The dedup-harness grader, bundled for Gradescope.\n", False),
    ]
    if weights is not None:
        entries.append(("weights.toml", weights.read_bytes(), False))
    entries += [(name, path.read_bytes(), False) for name, path in package_files()]
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data, executable in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=STAMP)
            info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    shutil.move(partial, out)
    return len(entries)
