"""A plain `pytest` ends by saying which tests it skipped that CI runs (tests/conftest.py), and what runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
CONSUMERS = "test_the_junit_file_is_valid_under_jenkins_junit_xsd or test_the_stryker_report_is_valid"


def pytest_in(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    unset = ("PYTEST_", "DEDUP_HARNESS_JUNIT_XSD", "DEDUP_HARNESS_NODE_MODULES", "HYPOTHESIS_")
    whole = {k: v for k, v in os.environ.items() if not k.startswith(unset)} | env
    command = [sys.executable, "-m", "pytest", "-p", "no:benchmark", *args]
    return subprocess.run(command, cwd=folder, env=whole, capture_output=True, text=True, timeout=300)


def test_skipped_consumer_checks_are_named_with_what_runs_them(tmp_path: Path) -> None:
    run = pytest_in(tmp_path, str(TESTS / "harness" / "test_report_consumers.py"), "-k", CONSUMERS)
    assert run.returncode == 0, run.stdout + run.stderr
    [line] = [line for line in run.stdout.splitlines() if line.startswith("dedup-harness: not run here: ")]
    assert line.startswith(
        "dedup-harness: not run here: the JUnit file against Jenkins' XSD (1 test: .ci/run); "
        "Stryker's report schema and viewer (1 test: .ci/run). .ci/run installs the consumers"
    )
    assert "DEDUP_HARNESS_JUNIT_XSD and DEDUP_HARNESS_NODE_MODULES" in line


def test_a_run_that_skips_none_of_them_says_nothing(tmp_path: Path) -> None:
    run = pytest_in(tmp_path, str(TESTS / "harness" / "test_report_consumers.py"), "-k", "gradescope")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "not run here" not in run.stdout


def test_a_plain_run_leaves_out_the_slow_modules_and_says_what_runs_them(tmp_path: Path) -> None:
    slow_module = str(TESTS / "harness" / "test_csv_readers.py")
    plain = pytest_in(tmp_path, slow_module, "--collect-only", "-q")
    assert "no tests collected" in plain.stdout and "deselected" in plain.stdout, plain.stdout + plain.stderr
    [line] = [line for line in plain.stdout.splitlines() if line.startswith("dedup-harness: ") and "slow" in line]
    assert "`pytest -m slow` runs them, as .ci/run does" in line
    slow = pytest_in(tmp_path, slow_module, "--collect-only", "-q", "-m", "slow")
    assert "test_csv_readers.py::" in slow.stdout and "deselected" not in slow.stdout, slow.stdout + slow.stderr


def test_every_slow_module_is_a_module_of_the_tests(pytestconfig: pytest.Config) -> None:
    conftest = pytestconfig.pluginmanager.get_plugin(str(TESTS / "conftest.py"))
    assert conftest is not None
    SLOW_MODULES = conftest.SLOW_MODULES
    modules = {path.name for path in TESTS.rglob("test_*.py")}
    assert set(SLOW_MODULES) <= modules, set(SLOW_MODULES) - modules
