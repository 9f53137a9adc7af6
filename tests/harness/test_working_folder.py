"""verify, check, grade and the student's start, tests and diff leave nothing in the folder they run in but the
outputs asked for.

Each runs as a TA runs it: a fresh process started in an empty folder (a fork server started there
once left Hypothesis's `.hypothesis/` behind). The suite run from an installed wheel is held to the
same in test_suite_from_a_wheel.py, and from a checkout in test_impl_option.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from dedup_harness.core import scratch_dirs

SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"
HARNESS_TESTS = Path(__file__).resolve().parent
# verify over the small world of test_verify_cli.py (a three-check suite, two mutants), through main().
VERIFY_A_WORLD = """
import sys
from pathlib import Path
sys.path[:0] = [sys.argv[1], sys.argv[3]]  # the tests' helpers, and tools/ (world.py diffs with mutant_diffs)
from world import make_world
import dedup_harness.commands.verify as verify
layout = make_world(Path(sys.argv[2]))
verify.Layout = lambda: layout
from dedup_harness.cli import main
sys.exit(main(["verify", "--jobs", "2"]))
"""


def run_in(folder: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HYPOTHESIS_", "DEDUP_HARNESS_PROFILE"))}
    return subprocess.run([sys.executable, *argv], cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_verify_leaves_the_working_folder_empty(tmp_path: Path) -> None:
    empty = tmp_path / "here"
    empty.mkdir()
    tools = HARNESS_TESTS.parent.parent / "tools"
    run = run_in(empty, "-c", VERIFY_A_WORLD, str(HARNESS_TESTS), str(tmp_path / "world"), str(tools))
    assert run.returncode == 0, run.stdout + run.stderr
    assert listing(empty) == []


def test_check_leaves_only_the_students_file(tmp_path: Path) -> None:
    shutil.copyfile(SAMPLES / "correct_different.py", tmp_path / "dedup.py")
    run = run_in(tmp_path, "-m", "dedup_harness.cli", "check")
    assert run.returncode == 0, run.stdout + run.stderr
    assert listing(tmp_path) == ["dedup.py"]


def test_start_tests_and_diff_leave_only_the_stub(tmp_path: Path) -> None:
    """``tests 5`` collects the installed suite in-process: no pytest cache, no Hypothesis folder is left."""
    for argv in (["start"], ["tests"], ["tests", "5"], ["diff"]):
        run = run_in(tmp_path, "-m", "dedup_harness.cli", *argv)
        assert run.returncode == 0, (argv, run.stdout + run.stderr)
    assert listing(tmp_path) == ["dedup.py"]


def test_grade_leaves_only_the_output_asked_for(tmp_path: Path) -> None:
    # A benign sample: --unisolated only lets a machine where no tier isolates still show what grade leaves.
    argv = ["-m", "dedup_harness.cli", "grade", str(SAMPLES / "keeps_last.py"), "--csv", "g.csv", "--unisolated"]
    run = run_in(tmp_path, *argv)
    assert run.returncode == 0, run.stdout + run.stderr
    assert listing(tmp_path) == ["g.csv"]


def test_hypothesis_home_points_this_run_and_its_children_at_scratch_and_keeps_a_callers_choice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(scratch_dirs.HYPOTHESIS_HOME_ENV, raising=False)
    with scratch_dirs.hypothesis_home():
        home = Path(os.environ[scratch_dirs.HYPOTHESIS_HOME_ENV])
        assert home.parent == Path(tempfile.gettempdir()) and home.name.startswith(scratch_dirs.prefix("hypothesis"))
    assert scratch_dirs.HYPOTHESIS_HOME_ENV not in os.environ
    monkeypatch.setenv(scratch_dirs.HYPOTHESIS_HOME_ENV, "/chosen")
    with scratch_dirs.hypothesis_home():
        assert os.environ[scratch_dirs.HYPOTHESIS_HOME_ENV] == "/chosen"
    assert os.environ[scratch_dirs.HYPOTHESIS_HOME_ENV] == "/chosen"
