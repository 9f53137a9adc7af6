"""Each fact has one home (ARCHITECTURE.md's table): every home the table names exists, and the facts a
machine can find written elsewhere are written only there.

Where a tool cannot read Python (pyproject.toml for hatch), its copy is held to the home instead.
"""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

import dedup_harness
from dedup_harness.core.contract import SURFACE
from dedup_harness.core.paths import DATA_FOLDERS, PACKAGE_DIR
from dedup_harness.grade.worker import protocol as wire

PROJECT = PACKAGE_DIR.parent.parent
pytestmark = pytest.mark.skipif(
    not (PROJECT / "ARCHITECTURE.md").is_file(), reason="an installed wheel carries no ARCHITECTURE.md"
)
HARNESS = PACKAGE_DIR


def table_homes() -> list[str]:
    """The paths the "one home" table names in its second column (in backquotes)."""
    text = (PROJECT / "ARCHITECTURE.md").read_text(encoding="utf-8").split("## One home for each fact", 1)[1]
    text = text.split("\n## ", 1)[0]  # the section alone
    rows = [line.split("|")[2] for line in text.splitlines() if line.startswith("| ") and line.count("|") >= 3]
    return [path for row in rows[1:] for path in re.findall(r"`([\w/.]+\.(?:py|md|json|toml)|[\w/]+/)`", row)]


def resolves(path: str) -> bool:
    """A home is named from the project's top, from the package's, or (a module beside another it names)
    from its capability's folder."""
    return any((base / path).exists() for base in (PROJECT, HARNESS)) or any(HARNESS.rglob(path))


def test_every_home_the_table_names_exists() -> None:
    homes = table_homes()
    assert len(homes) > 20
    assert [path for path in homes if not resolves(path)] == []


def test_pyprojects_lists_of_the_data_folders_are_the_paths_module_s() -> None:
    wheel = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]["build"]["targets"]
    assert wheel["wheel"]["only-include"] == ["harness/dedup_harness", *DATA_FOLDERS]
    assert list(wheel["wheel"]["sources"]) == ["harness/dedup_harness", *DATA_FOLDERS]
    assert set(DATA_FOLDERS) <= set(wheel["sdist"]["include"])


def test_the_version_is_written_once_and_the_installed_metadata_reads_it() -> None:
    text = (PROJECT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in text and "\nversion =" not in text
    assert version("dedup-harness") == dedup_harness.__version__


def test_the_workers_copy_of_the_surface_is_the_contracts() -> None:
    """The worker runs where the harness cannot be imported, so it keeps its own copy: held here."""
    assert wire.NAMES == SURFACE


def python_files() -> list[Path]:
    return [path for path in HARNESS.rglob("*.py") if "__pycache__" not in path.parts]


@pytest.mark.parametrize(
    ("fact", "pattern", "home"),
    [
        ("the rate formula exp(-8B (ln 2)**2)", r"exp\(\s*-\s*8\s*\*", "core/bloom_sizing.py"),
        ("the stats' names", r'"docs_in",\s*"paragraphs",\s*"bloom_bits"', "core/contract.py"),
        ("the data folders", r'"impl",\s*"impl_external",\s*"oracle"', "core/paths.py"),
    ],
)
def test_a_fact_is_written_only_in_its_home(fact: str, pattern: str, home: str) -> None:
    found = [
        path.relative_to(HARNESS).as_posix()
        for path in python_files()
        if re.search(pattern, path.read_text(encoding="utf-8"))
    ]
    assert found == [home], f"{fact} is written in {found}"
