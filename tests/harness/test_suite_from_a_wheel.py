"""The suite as a pytest plugin: after installing the wheel, `pytest --pyargs ... --impl ROOT` from any folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dedup_harness.core.catalogue import load_catalogue
from dedup_harness.core.mutant_roots import mutant_root
from dedup_harness.core.paths import IMPL_ROOT, MUTANTS_DIR

PROJECT = Path(__file__).resolve().parents[2]
SUITE_PACKAGE = "dedup_harness._data.tests.suite"  # the README's command names it
TWO_CHECKS = "test_hand_example_three_documents or test_stats_name_every_key"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built and installed (without its dependencies, which this venv has) into a folder."""
    if not (PROJECT / "pyproject.toml").is_file():
        pytest.skip("the wheel is built from a checkout; this copy of the tests is installed")
    folder = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(folder / "dist")],
        cwd=PROJECT,
        check=True,
        capture_output=True,
    )
    [wheel] = (folder / "dist").glob("*.whl")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--target",
            str(folder / "site"),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    return folder / "site"


def pytest_from(folder: Path, site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest run in ``folder`` with the installed wheel first on the path and plugins autoloaded (the entry point)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DEDUP_HARNESS_PROFILE"))}
    env["PYTHONPATH"] = str(site)
    command = [sys.executable, "-m", "pytest", "--pyargs", SUITE_PACKAGE, "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def test_the_installed_suite_runs_against_the_root_impl_names_from_any_folder(installed: Path, tmp_path: Path) -> None:
    run = pytest_from(tmp_path, installed, "--impl", str(IMPL_ROOT), "-k", TWO_CHECKS)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 passed" in run.stdout  # the hand example, and the stats check's two cases


def test_the_installed_suite_fails_a_mutant_root_the_check_names(installed: Path, tmp_path: Path) -> None:
    s01 = next(m for m in load_catalogue(MUTANTS_DIR) if m.id == "s01")
    root = mutant_root(s01, tmp_path / "s01", IMPL_ROOT)
    run = pytest_from(tmp_path, installed, "--impl", str(root), "-k", TWO_CHECKS, "-rN", "--no-header")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 failed, 2 passed" in run.stdout
    assert "test_hand_example_three_documents" in run.stdout
