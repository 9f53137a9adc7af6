"""The suite as a pytest plugin: after installing the wheel, `pytest --pyargs ... --impl PATH` from any folder.

Its header names what is under test, a student's folder is taken as `check` takes it, and the folder
the run starts in is left as it was: no `.pytest_cache/`, no `.hypothesis/`, no patch offered against
the installed files.
"""

from __future__ import annotations

import os
import re
import shutil
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
SAMPLES = PROJECT / "tests" / "harness" / "submissions" / "samples"


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
    """pytest run in ``folder`` with the installed wheel first on the path and plugins autoloaded (the entry point).

    pytest-benchmark, a test extra of this venv that a student's install lacks, is turned off: it makes
    ``.benchmarks/`` in any folder pytest runs in.
    """
    unset = ("PYTEST_", "DEDUP_HARNESS_PROFILE", "HYPOTHESIS_STORAGE_DIRECTORY")
    env = {k: v for k, v in os.environ.items() if not k.startswith(unset)}
    env["PYTHONPATH"] = str(site)
    command = [sys.executable, "-m", "pytest", "--pyargs", SUITE_PACKAGE, "-p", "no:benchmark", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def header(run: subprocess.CompletedProcess[str]) -> str:
    """The run header's line that says what is under test."""
    [line] = [line for line in run.stdout.splitlines() if line.startswith("dedup-harness: under test ")]
    return line


def student_folder(tmp_path: Path, sample: str) -> Path:
    """A folder as a student has it when they run `check`: their dedup.py and nothing else."""
    folder = tmp_path / "student"
    folder.mkdir()
    shutil.copyfile(SAMPLES / sample, folder / "dedup.py")
    return folder


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


def test_the_installed_suite_takes_a_students_folder_and_its_header_names_the_file_and_the_root(
    installed: Path, tmp_path: Path
) -> None:
    folder = student_folder(tmp_path, "correct_different.py")
    run = pytest_from(folder, installed, "--impl", ".", "-k", TWO_CHECKS)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 passed" in run.stdout
    said = header(run)
    assert f"--impl .: {folder / 'dedup.py'}, in the scratch root " in said and "hypothesis profile dev" in said
    scratch_root = Path(re.search(r"in the scratch root (\S+) ", said)[1])  # type: ignore[index]
    assert not scratch_root.exists(), "the scratch root goes when the run ends"
    assert sorted(p.name for p in folder.iterdir()) == ["dedup.py"]


def test_the_installed_suite_without_impl_says_it_runs_the_reference(installed: Path, tmp_path: Path) -> None:
    run = pytest_from(tmp_path, installed, "-k", "test_stats_name_every_key")
    assert run.returncode == 0, run.stdout + run.stderr
    assert header(run).startswith("dedup-harness: under test the reference, ")
    assert "(no --impl given)" in header(run)
    assert list(tmp_path.iterdir()) == []


def test_a_failing_property_of_the_installed_suite_offers_no_patch_and_leaves_nothing(
    installed: Path, tmp_path: Path
) -> None:
    folder = student_folder(tmp_path, "keeps_last.py")
    run = pytest_from(folder, installed, "--impl", "dedup.py", "-k", "test_random_corpora_match_the_set_oracle")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Failing test case: test_random_corpora_match_the_set_oracle(" in run.stdout  # the example is still shown
    assert "git apply" not in run.stdout + run.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["dedup.py"]


def test_a_path_impl_cannot_take_is_one_usage_line_from_the_installed_suite(installed: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not code")
    run = pytest_from(tmp_path, installed, "--impl", "notes.txt")
    assert run.returncode == 4, run.stdout + run.stderr
    assert run.stderr.strip() == (
        "ERROR: --impl notes.txt: not a Python file; --impl takes an implementation root (a folder holding "
        "corpus/), a dedup.py, or a folder holding one"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
