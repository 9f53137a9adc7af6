"""`--impl` takes what `check` takes, names what is under test in the run's header, and leaves the folder alone.

The installed suite is tested in test_suite_from_a_wheel.py; these run the suite of this checkout.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dedup_harness.core.impl_roots import NotAnImplementation, classify, under_test
from dedup_harness.core.impl_under_test import names_our_tests
from dedup_harness.core.paths import DATA_ROOT, IMPL_ROOT, TESTS_DIR

SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"
SUITE = TESTS_DIR / "suite"


def student_file(folder: Path, where: str = "dedup.py") -> Path:
    path = folder / where
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SAMPLES / "correct_different.py", path)
    return path


class TestWhatImplTakes:
    def test_a_folder_holding_a_corpus_package_is_an_implementation_root_used_as_it_is(self) -> None:
        assert classify(IMPL_ROOT) == (IMPL_ROOT.resolve(), None)

    @pytest.mark.parametrize(
        ("given", "where"),
        [("dedup.py", "dedup.py"), (".", "dedup.py"), (".", "corpus/dedup.py"), ("mine.py", "mine.py")],
    )
    def test_a_dedup_py_or_a_folder_check_would_look_in_is_a_students_file(
        self, tmp_path: Path, given: str, where: str
    ) -> None:
        source = student_file(tmp_path, where)
        assert classify(tmp_path / given) == (None, source.resolve())

    @pytest.mark.parametrize(
        ("name", "says"),
        [
            ("missing", "missing: no such file or folder"),
            ("empty", "empty: a folder with no corpus/ package and no dedup.py"),
            ("notes.txt", "notes.txt: not a Python file"),
        ],
    )
    def test_anything_else_is_refused_saying_what_impl_takes(self, tmp_path: Path, name: str, says: str) -> None:
        (tmp_path / "empty").mkdir()
        (tmp_path / "notes.txt").write_text("x")
        with pytest.raises(NotAnImplementation, match="--impl takes an implementation root") as refused:
            classify(tmp_path / name)
        assert str(refused.value).startswith(f"{tmp_path / says}")

    def test_a_students_file_runs_in_a_scratch_root_beside_the_reference_modules(self, tmp_path: Path) -> None:
        source = student_file(tmp_path / "student")
        found = under_test(str(source), lambda: tmp_path / "scratch")
        assert found.source == source.resolve() and found.root == (tmp_path / "scratch" / "root").resolve()
        assert filecmp.cmp(found.root / "corpus" / "dedup.py", source, shallow=False)
        for module in ("__init__.py", "doc.py", "hashing.py", "bloom.py"):
            assert filecmp.cmp(found.root / "corpus" / module, IMPL_ROOT / "corpus" / module, shallow=False)

    def test_without_impl_the_reference_is_under_test_and_no_scratch_is_made(self) -> None:
        def no_scratch() -> Path:
            raise AssertionError("no scratch is needed for the reference")

        found = under_test(None, no_scratch)
        assert (found.root, found.source) == (IMPL_ROOT.resolve(), None)
        assert found.describe().startswith("the reference, ")


class TestWhichRunsAreOurs:
    def test_paths_into_the_tests_the_checkout_and_the_installed_package_are_ours(self, tmp_path: Path) -> None:
        assert names_our_tests([str(SUITE / "test_stage.py") + "::test_x"], pyargs=False, base=tmp_path)
        assert names_our_tests(["."], pyargs=False, base=DATA_ROOT)
        assert names_our_tests(["dedup_harness._data.tests.suite"], pyargs=True, base=tmp_path)

    def test_another_projects_tests_are_not(self, tmp_path: Path) -> None:
        assert not names_our_tests(["tests", "test_x.py"], pyargs=False, base=tmp_path)
        assert not names_our_tests(["otherpkg.tests"], pyargs=True, base=tmp_path)


def suite_from(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """This checkout's suite, run by pytest in ``folder`` (as a developer or a TA runs it from elsewhere)."""
    unset = ("PYTEST_", "DEDUP_HARNESS_PROFILE", "HYPOTHESIS_STORAGE_DIRECTORY")
    env = {k: v for k, v in os.environ.items() if not k.startswith(unset)}
    # pytest-benchmark (a test extra, not a student's) makes .benchmarks/ wherever pytest runs: off.
    command = [sys.executable, "-m", "pytest", str(SUITE), "-p", "no:benchmark", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def test_the_header_names_the_students_file_and_the_scratch_root_and_the_folder_stays_as_it_was(
    tmp_path: Path,
) -> None:
    student = tmp_path / "student"
    source = student_file(student)
    run = suite_from(student, "--impl", ".", "-k", "test_stats_name_every_key")
    assert run.returncode == 0, run.stdout + run.stderr
    [said] = [line for line in run.stdout.splitlines() if line.startswith("dedup-harness: under test ")]
    assert said.startswith(f"dedup-harness: under test --impl .: {source}, in the scratch root ")
    assert said.endswith("(dedup.py yours; doc.py, hashing.py and bloom.py the course's); hypothesis profile dev")
    assert sorted(p.name for p in student.iterdir()) == ["dedup.py"]


def test_a_root_is_named_as_given_and_as_resolved(tmp_path: Path) -> None:
    run = suite_from(tmp_path, "--impl", str(IMPL_ROOT), "-k", "test_stats_name_every_key")
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"dedup-harness: under test --impl {IMPL_ROOT}: the implementation root {IMPL_ROOT.resolve()};" in run.stdout
    assert list(tmp_path.iterdir()) == []


def test_a_path_impl_cannot_take_is_one_usage_line_and_exit_status_4(tmp_path: Path) -> None:
    run = suite_from(tmp_path, "--impl", "nowhere")
    assert run.returncode == 4, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert run.stderr.strip().splitlines() == [
        "ERROR: --impl nowhere: no such file or folder; --impl takes an implementation root (a folder holding "
        "corpus/), a dedup.py, or a folder holding one"
    ]
