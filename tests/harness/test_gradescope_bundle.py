"""The Gradescope bundle, end to end: build the zip, unpack it, run its setup.sh with no network at all, then
its run_autograder on a fake /autograder. The bundle allows numpy (``--allow numpy``), as a course may."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

from dedup_harness.cli import main
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.provenance import provenance
from dedup_harness.distribution.gradescope_bundle import python_now

SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"
TUNED = Path(__file__).resolve().parent / "submissions" / "held_back" / "tuned_to_the_public_cases.py"
HIDDEN_SEED = 0x5EED_2026_0000_0000_0000_0000_0000_0001  # 128 bits: a shorter seed is refused


def index_reachable() -> str:
    """Why pip cannot reach its index here ("" when it can): building a bundle downloads wheels."""
    with tempfile.TemporaryDirectory() as scratch:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", scratch, "iniconfig"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    return "" if done.returncode == 0 else f"pip cannot reach its index here: {done.stderr.strip()[-200:]}"


def unpack(archive_path: Path, into: Path) -> Path:
    with zipfile.ZipFile(archive_path) as archive:
        archive.extractall(into)
        for info in archive.infolist():  # extractall drops the mode bits: restore them
            (into / info.filename).chmod(info.external_attr >> 16 & 0o777)
    return into


@pytest.fixture(scope="module")
def bundle_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    why = index_reachable()
    if why:
        pytest.skip(why)
    folder = tmp_path_factory.mktemp("bundle")
    weights = folder / "weights.toml"
    weights.write_text("total = 100\n[weights]\ntest_the_spool_is_removed = 3\n", encoding="utf-8")
    pytest.importorskip("numpy", reason="the numpy extra is not installed")
    built = ["gradescope-bundle", str(folder / "autograder.zip"), "--weights", str(weights), "--allow", "numpy"]
    built += ["--hidden-seed", f"{HIDDEN_SEED:032x}"]
    assert main(built) == 0
    return folder / "autograder.zip"


@pytest.fixture(scope="module")
def bundle(bundle_zip: Path) -> Path:
    return unpack(bundle_zip, bundle_zip.parent / "source")


def offline(command: list[str]) -> list[str]:
    """``command`` in a network namespace of its own with only loopback: no index, no mirror, nothing."""
    return ["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$@"', "offline", *command]


def run_setup(bundle: Path, venv: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEDUP_HARNESS_VENV": str(venv)}
    for name in [n for n in env if n.startswith("PIP_") or n in ("PYTHONPATH", "VIRTUAL_ENV")]:
        del env[name]  # nothing of this test run's pip or Python may help the install
    return subprocess.run(
        offline(["bash", str(bundle / "setup.sh")]), env=env, capture_output=True, text=True, timeout=900
    )


def offline_setup_reason() -> str:
    if os.geteuid() != 0:
        return "setup.sh runs as root on Gradescope; these tests run it only as root"
    if not shutil.which("python3.11") or not shutil.which("ip"):
        return "the bundle's Python (python3.11) or ip(8) is not on PATH"
    probe = subprocess.run(offline(["true"]), capture_output=True, text=True, check=False)
    return "" if probe.returncode == 0 else f"no network namespace here: {probe.stderr.strip()[-200:]}"


@pytest.fixture(scope="module")
def installed(bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundle's setup.sh, run as Gradescope runs it, with no network at all: the venv it made."""
    why = offline_setup_reason()
    if why:
        pytest.skip(why)
    venv = tmp_path_factory.mktemp("gradescope") / "venv"
    done = run_setup(bundle, venv)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "setup.sh: ready: the bundled reference gets full marks" in done.stderr
    return venv


def test_the_bundle_has_gradescopes_two_scripts_at_its_root_executable(bundle: Path) -> None:
    for script in ("setup.sh", "run_autograder"):
        assert (bundle / script).stat().st_mode & stat.S_IXUSR, script
        subprocess.run(["bash", "-n", str(bundle / script)], check=True)


def test_the_bundle_carries_a_wheel_of_every_tested_release_each_locked_by_its_hash(bundle: Path) -> None:
    tested = provenance(python_now())
    recorded = json.loads((bundle / "provenance.json").read_text(encoding="utf-8"))
    assert recorded == {
        "harness_version": tested.version,
        "python": python_now(),
        "dependencies": list(tested.dependencies),
        "digest": tested.digest,
    }
    wheels = {parse_wheel_filename(w.name)[:2]: w for w in (bundle / "wheels").glob("*.whl")}
    pinned = {(canonicalize_name(line.split("==")[0]), line.split("==")[1]) for line in tested.dependencies}
    allowed = {("numpy", importlib.metadata.version("numpy"))}
    assert {(str(name), str(version)) for name, version in wheels} == pinned | allowed | {
        ("dedup-harness", tested.version)
    }
    for line in (bundle / "requirements.lock").read_text(encoding="utf-8").splitlines():
        requirement, digest = line.split(" --hash=sha256:")
        name, version = requirement.split("==")
        wheel = wheels[canonicalize_name(name), Version(version)]
        assert hashlib.sha256(wheel.read_bytes()).hexdigest() == digest, wheel.name
    with zipfile.ZipFile(next((bundle / "wheels").glob("dedup_harness-*.whl"))) as harness:
        assert "dedup_harness/_data/tests/suite/test_stage.py" in harness.namelist()
        assert "dedup_harness/_data/impl/corpus/dedup.pyi" in harness.namelist()


def test_the_bundle_names_the_packages_the_course_allows_for_both_scripts(bundle: Path) -> None:
    assert (bundle / "allowed.txt").read_text(encoding="utf-8") == "numpy\n"
    lock = (bundle / "requirements.lock").read_text(encoding="utf-8")
    assert f"numpy=={importlib.metadata.version('numpy')} --hash=sha256:" in lock


def test_the_bundle_holds_the_courses_seed_for_run_autograder(bundle: Path) -> None:
    assert (bundle / "hidden-seed.txt").read_text(encoding="utf-8") == f"{HIDDEN_SEED:032x}\n"


def test_setup_installs_the_tested_releases_with_no_network_at_all(installed: Path) -> None:
    python = installed / "bin" / "python"
    done = subprocess.run([str(python), "-I", "-m", "dedup_harness.core.provenance"], capture_output=True, text=True)
    assert json.loads(done.stdout)["digest"] == provenance(python_now()).digest


def copy_of(bundle: Path, into: Path) -> Path:
    shutil.copytree(bundle, into, symlinks=True)
    return into


def test_setup_refuses_a_wheel_that_is_not_the_one_tested(bundle: Path, tmp_path: Path) -> None:
    """A wheel swapped in the bundle (here: one byte more) no longer matches its hash in requirements.lock."""
    if offline_setup_reason():
        pytest.skip(offline_setup_reason())
    tampered = copy_of(bundle, tmp_path / "source")
    wheel = next((tampered / "wheels").glob("hypothesis-*.whl"))
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    done = run_setup(tampered, tmp_path / "venv")
    assert done.returncode == 1
    assert "setup.sh: FAILED: the bundle's wheels could not be installed" in done.stderr
    assert "hash" in done.stderr.lower()


def test_setup_refuses_an_installed_set_other_than_the_tested_one(bundle: Path, tmp_path: Path) -> None:
    """provenance.json names the set tested; an install that does not give it fails the build."""
    if offline_setup_reason():
        pytest.skip(offline_setup_reason())
    edited = copy_of(bundle, tmp_path / "source")
    recorded = edited / "provenance.json"
    recorded.write_text(recorded.read_text(encoding="utf-8").replace("sha256:", "sha256:0"), encoding="utf-8")
    done = run_setup(edited, tmp_path / "venv")
    assert done.returncode == 1
    assert "setup.sh: FAILED: the installed dependency set (sha256:" in done.stderr


def run_autograder(bundle: Path, venv: Path, root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEDUP_HARNESS_AUTOGRADER_ROOT": str(root), "DEDUP_HARNESS_VENV": str(venv)}
    env.pop("PYTHONPATH", None)  # the bundle's own copy of the harness must be the one that runs
    return subprocess.run([str(bundle / "run_autograder")], env=env, capture_output=True, text=True, timeout=600)


def autograded(bundle: Path, venv: Path, tmp_path: Path, sample: str | Path, folder: str = "") -> dict[str, Any]:
    """results.json of run_autograder on the sample (a name, or a path), as Gradescope unpacks it (in ``folder`` of
    the submission)."""
    root = tmp_path / "autograder"
    (root / "submission" / folder).mkdir(parents=True)
    source = sample if isinstance(sample, Path) else SAMPLES / f"{sample}.py"
    (root / "submission" / folder / "dedup.py").write_bytes(source.read_bytes())
    done = run_autograder(bundle, venv, root)
    assert done.returncode == 0, done.stderr
    results: dict[str, Any] = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    return results


def test_run_autograder_grades_the_submission_into_results_json(bundle: Path, installed: Path, tmp_path: Path) -> None:
    results = autograded(bundle, installed, tmp_path, "spool_left_on_close")
    assert results["stdout_visibility"] == "hidden"
    assert isinstance(results["execution_time"], (int, float))
    assert [t["number"] for t in results["tests"]] == [str(n) for n in range(1, len(CHECKS) + 1)]
    failed = {t["name"]: t.get("output", "")[:2000] for t in results["tests"] if t["status"] == "failed"}
    assert list(failed) == ["test_the_spool_is_removed"], failed
    spool = results["tests"][10]
    assert (spool["name"], spool["score"]) == ("test_the_spool_is_removed", 0)
    assert results["score"] == pytest.approx(100 - spool["max_score"], abs=1e-3)
    assert spool["max_score"] == pytest.approx(300 / (len(CHECKS) + 2), abs=1e-3)


def test_run_autograder_grades_the_cases_held_back_and_shows_them_after_the_due_date(
    bundle: Path, installed: Path, tmp_path: Path
) -> None:
    """A stage tuned to the public cases: check 3 lost on the course's cases alone, said without them; the case
    itself in a test of no points that Gradescope shows after the due date."""
    results = autograded(bundle, installed, tmp_path, TUNED)
    by_number = {t["number"]: t for t in results["tests"]}
    assert [n for n, t in by_number.items() if t.get("status") == "failed"] == ["3"]
    assert "fails on cases your course holds back" in by_number["3"]["output"]
    assert "'m" not in by_number["3"]["output"], "no document of a case held back"
    later = by_number["3.1"]
    assert later["visibility"] == "after_due_date" and "'m" in later["output"] and "max_score" not in later


def test_run_autograder_finds_dedup_py_one_folder_down(bundle: Path, installed: Path, tmp_path: Path) -> None:
    """A student who zipped their project folder: Gradescope unpacks it as submission/<folder>/dedup.py."""
    results = autograded(bundle, installed, tmp_path, "correct_different", "my-project")
    assert results["score"] == pytest.approx(100, abs=1e-2)


def test_run_autograder_grades_a_submission_using_the_allowed_numpy_to_full_marks(
    bundle: Path, installed: Path, tmp_path: Path
) -> None:
    results = autograded(bundle, installed, tmp_path, "correct_numpy")
    assert results["score"] == pytest.approx(100, abs=1e-2), results.get("output")


def test_setup_fails_the_build_loudly_when_the_tested_python_cannot_be_had(bundle: Path, tmp_path: Path) -> None:
    """An image whose only Python is another version and which has no apt: the build fails, naming what is missing."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("bash", "dirname", "mktemp", "rm", "chmod", "sed"):
        (tools / name).symlink_to(shutil.which(name) or f"/usr/bin/{name}")
    old = tools / "python3"
    old.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")  # what another version answers to the version test
    old.chmod(0o755)
    env = {"PATH": str(tools), "DEDUP_HARNESS_VENV": str(tmp_path / "venv")}
    done = subprocess.run(
        [str(tools / "bash"), str(bundle / "setup.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert f"setup.sh: FAILED: no Python {python_now()} with venv could be installed" in done.stderr
    assert not (tmp_path / "venv").exists()
