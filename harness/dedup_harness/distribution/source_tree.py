"""The harness's source tree in its installed layout, staged to build a wheel from: the Gradescope bundle's and the
student kit's.

A wheel built from a checkout and one built from an installed copy must hold the same files in the
same places: ``dedup_harness/`` with its data under ``dedup_harness/_data/`` (``core/paths.py``).
So both are built from a tree staged here (the package's files, chosen or all; a build file with the
harness's name, version, dependencies and console script) by the build backend, offline where it is
installed (``bundle_wheels.build_wheel``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

from dedup_harness import __version__
from dedup_harness.core.paths import DATA_FOLDERS, DATA_ROOT, PACKAGE_DIR
from dedup_harness.core.provenance import runtime_requirements

SKIP = {"__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
PLUGIN_ENTRY = "dedup_harness.core.impl_under_test"  # the suite's --impl plugin (pyproject.toml's pytest11)


def pyproject(*, version: str = __version__, plugin: bool = False, packages: Iterable[str] = ("dedup_harness",)) -> str:
    """The staged tree's build file: the harness's name, ``version``, dependencies, script and ``packages`` (and,
    with ``plugin``, the suite's pytest plugin, so that ``pytest --pyargs`` finds ``--impl``)."""
    dependencies = ", ".join(f'"{d}"' for d in runtime_requirements())
    entry = f'\n[project.entry-points.pytest11]\n"{PLUGIN_ENTRY}" = "{PLUGIN_ENTRY}"\n' if plugin else ""
    return (
        '[build-system]\nrequires = ["hatchling>=1.21"]\nbuild-backend = "hatchling.build"\n\n'
        f'[project]\nname = "dedup-harness"\nversion = "{version}"\nrequires-python = ">=3.11"\n'
        f'readme = "README.md"\ndependencies = [{dependencies}]\n\n'
        f'[project.scripts]\ndedup-harness = "dedup_harness.cli:main"\n{entry}\n'
        f"[tool.hatch.build.targets.wheel]\npackages = {json.dumps(sorted(packages))}\n"
    )


def package_files() -> Iterator[tuple[str, Path]]:
    """(path in the source tree, file on disk) for the whole package in its installed layout."""
    for path in files_under(PACKAGE_DIR):
        relative = path.relative_to(PACKAGE_DIR)
        if relative.parts[0] != "_data":
            yield f"dedup_harness/{relative.as_posix()}", path
    for folder in DATA_FOLDERS:
        for path in files_under(DATA_ROOT / folder):
            yield f"dedup_harness/_data/{folder}/{path.relative_to(DATA_ROOT / folder).as_posix()}", path


def files_under(folder: Path) -> Iterator[Path]:
    """Every file under ``folder``, sorted, without caches and compiled bytecode."""
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not SKIP.intersection(path.relative_to(folder).parts) and path.suffix != ".pyc":
            yield path


def stage_source(
    folder: Path, files: Iterable[tuple[str, Path | bytes]], *, readme: str, version: str = __version__, plugin: bool
) -> None:
    """A source tree in ``folder``: ``files`` (each a path in the tree, and a file to copy or the bytes to write),
    a README and a build file whose packages are the tree's top folders."""
    folder.mkdir(parents=True)
    files = list(files)
    build = pyproject(version=version, plugin=plugin, packages={name.split("/")[0] for name, _ in files})
    (folder / "pyproject.toml").write_text(build, encoding="utf-8")
    (folder / "README.md").write_text(readme, encoding="utf-8")
    for name, source in files:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, bytes):
            target.write_bytes(source)
        else:
            shutil.copyfile(source, target)
