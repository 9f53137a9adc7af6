"""The Gradescope bundle, end to end: build the zip, unpack it, run its run_autograder on a fake /autograder."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dedup_harness.cli import main
from dedup_harness.core.checks import CHECKS

SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bundle")
    weights = folder / "weights.toml"
    weights.write_text("total = 100\n[weights]\ntest_the_spool_is_removed = 3\n", encoding="utf-8")
    assert main(["gradescope-bundle", str(folder / "autograder.zip"), "--weights", str(weights)]) == 0
    unpacked = folder / "source"
    with zipfile.ZipFile(folder / "autograder.zip") as archive:
        archive.extractall(unpacked)
        for info in archive.infolist():  # extractall drops the mode bits: restore them
            (unpacked / info.filename).chmod(info.external_attr >> 16 & 0o777)
    return unpacked


def test_the_bundle_has_gradescopes_two_scripts_at_its_root_executable(bundle: Path) -> None:
    for script in ("setup.sh", "run_autograder"):
        assert (bundle / script).stat().st_mode & stat.S_IXUSR, script
        subprocess.run(["bash", "-n", str(bundle / script)], check=True)
    assert (bundle / "dedup-harness" / "dedup_harness" / "_data" / "impl" / "corpus" / "dedup.pyi").is_file()


def test_the_bundled_harness_builds_into_a_wheel_offline(bundle: Path, tmp_path: Path) -> None:
    """What setup.sh's pip install does, without the network: the bundled source is a valid project."""
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*command, "-w", str(tmp_path), str(bundle / "dedup-harness")], check=True, capture_output=True)
    wheel = next(tmp_path.glob("dedup_harness-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        assert "dedup_harness/_data/tests/suite/test_stage.py" in archive.namelist()


def test_run_autograder_grades_the_submission_into_results_json(bundle: Path, tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "dedup.py").write_bytes((SAMPLES / "spool_left_on_close.py").read_bytes())
    env = {**os.environ, "DEDUP_HARNESS_AUTOGRADER_ROOT": str(root), "DEDUP_HARNESS_PYTHON": sys.executable}
    env.pop("PYTHONPATH", None)  # the bundle's own copy of the harness must be the one that runs
    done = subprocess.run([str(bundle / "run_autograder")], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["stdout_visibility"] == "hidden"
    assert isinstance(results["execution_time"], (int, float))
    assert [t["number"] for t in results["tests"]] == [str(n) for n in range(1, len(CHECKS) + 1)]
    spool = results["tests"][10]
    assert (spool["name"], spool["status"], spool["score"]) == ("test_the_spool_is_removed", "failed", 0)
    assert results["score"] == pytest.approx(100 - spool["max_score"], abs=1e-3)
    assert spool["max_score"] == pytest.approx(300 / (len(CHECKS) + 2), abs=1e-3)


def test_run_autograder_finds_dedup_py_one_folder_down(bundle: Path, tmp_path: Path) -> None:
    """A student who zipped their project folder: Gradescope unpacks it as submission/<folder>/dedup.py."""
    root = tmp_path / "autograder"
    (root / "submission" / "my-project").mkdir(parents=True)
    (root / "submission" / "my-project" / "dedup.py").write_bytes((SAMPLES / "correct_different.py").read_bytes())
    env = {**os.environ, "DEDUP_HARNESS_AUTOGRADER_ROOT": str(root), "DEDUP_HARNESS_PYTHON": sys.executable}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(bundle / "run_autograder")], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == pytest.approx(100, abs=1e-2)


def test_setup_fails_the_build_loudly_when_no_python_3_11_can_be_had(bundle: Path, tmp_path: Path) -> None:
    """An image whose only Python is 3.10 and which has no apt: the build fails, naming what is missing."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("bash", "dirname", "mktemp", "rm", "chmod"):
        (tools / name).symlink_to(shutil.which(name) or f"/usr/bin/{name}")
    old = tools / "python3"
    old.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")  # what a 3.10 answers to the >= 3.11 test
    old.chmod(0o755)
    env = {"PATH": str(tools), "DEDUP_HARNESS_VENV": str(tmp_path / "venv")}
    done = subprocess.run(
        [str(tools / "bash"), str(bundle / "setup.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "setup.sh: FAILED: no Python >= 3.11 with venv could be installed" in done.stderr
    assert not (tmp_path / "venv").exists()
