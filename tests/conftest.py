"""Which implementation is under test, and how Hypothesis runs.

``--impl PATH`` names what the checks run against: an implementation root (a folder holding a
``corpus/`` package), a student's ``dedup.py`` or a folder holding one (put into a scratch root beside
the reference's other modules), or, when it is not given, the reference root ``impl/``. The plugin
``dedup_harness.core.impl_under_test`` declares the option, resolves it, loads the Hypothesis profile
and names both in the run's header. Every check reaches the implementation through the ``impl``
fixture, so another plugin (the grader's proxy to an isolated worker) can stand in for the
in-process module by putting its object in ``config.stash[IMPL_KEY]`` before the first check runs.
"""

from __future__ import annotations

import importlib
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import rich.style  # noqa: F401  (it draws from the global random as it is imported: before the guard below looks)

from dedup_harness.core.impl_under_test import IMPL_KEY, IMPL_OPTION, PLUGIN, start

DATA_ROOT = Path(__file__).resolve().parent.parent
ROOT_KEY = pytest.StashKey[Path]()
# The plugin that declares --impl (pytest loads it through its entry point unless autoloading is off).
pytest_plugins = (PLUGIN,)
# Tests that need what a plain `pytest` lacks and CI provides, found by a phrase of their skip reason
# (tests/harness/consumers.py, tests/harness/test_reports_in_chromium.py, tests/third_party/requirements.py):
# (phrase, what they check, what runs them). A plain run ends by saying which it did not run.
NOT_RUN_HERE = (
    ("DEDUP_HARNESS_JUNIT_XSD", "the JUnit file against Jenkins' XSD", ".ci/run"),
    ("DEDUP_HARNESS_NODE_MODULES", "Stryker's report schema and viewer", ".ci/run"),
    ("no Chromium on this machine", "the HTML pages in Chromium", ".ci/run"),
    ("is installed by `tox -e audit`", "the third-party Bloom filters", "tox -e audit"),
)

# The modules a plain `pytest` leaves out (pyproject.toml's `-m "not slow"`) and `pytest -m slow` runs, as
# .ci/run does: each costs many seconds a test, for what it is (their seconds in a full run here, 2 cores, two
# modules at once as .ci/run runs them, on 2026-12-04).
SLOW_MODULES = {
    "test_output_floods.py": "floods of output through every tier (51 s)",
    "test_disk_of_its_own.py": "disk bombs in every tier and setup (103 s)",
    "test_batch_attacks.py": "every attack on a batch, a classmate or the machine: one batch a tier and setup (403 s)",
    "test_hostile_submissions.py": "the hostile samples graded in every tier (72 s)",
    "test_refused_samples.py": "submissions the grader refuses, graded in every tier (26 s)",
    "test_allowed_in_tiers.py": "allowed and refused imports graded in every tier and setup (78 s)",
    "test_gradescope_bundle.py": "builds the bundle from wheels and runs its scripts (55 s)",
    "test_prairielearn_bundle.py": "builds PrairieLearn's bundle, installs its image, runs grade.sh (22 s)",
    "test_ci_workflow_commands.py": "ci-workflow's commands on a scratch class: verify, shards, merge (20 s)",
    "test_grade_end_to_end.py": "whole grade runs and their reports (53 s)",
    "test_grade_mutants.py": "every mutant graded and diagnosed (31 s)",
    "test_signals.py": "every command interrupted by every signal (53 s)",
    "test_tiers.py": "the reference and the attacker in seven machine setups (109 s)",
    "test_preflight.py": "the preflight in every tier and setup (21 s)",
    "test_light_install.py": "a venv with the base install only (16 s)",
    "test_memory_measurement.py": "check 14 against hostile memory in every tier (21 s)",
    "test_file_decisions.py": "the seccomp tier's file calls decided by the grader, in a confined child (under 1 s)",
    "test_suite_from_a_wheel.py": "the suite from a built and installed wheel (9 s)",
    "test_check_predicts_grade.py": "every sample through check as the test user and through grade (120 s)",
    "test_student_kit.py": "the student kit built, installed, and every candidate file run through check (50 s)",
    "test_working_folder.py": "every command in a fresh folder (8 s)",
    "test_csv_readers.py": "the CSV in pandas and LibreOffice (4 s)",
    "test_sheet.py": "the workbook printed by LibreOffice (4 s)",
    "test_confinement.py": "the worker's confinement in every setup (3 s)",
    "test_reports_in_chromium.py": "the pages in headless Chromium (11 s)",
}


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


# The file in which the process that made the test user names it (tests/harness/machine_setups.TEST_USER_MADE).
TEST_USER_MADE = "DEDUP_HARNESS_TEST_USER_MADE"
NAMES_USER_FILE = pytest.StashKey[bool]()  # this process named that file, and removes the user at the end


def pytest_configure(config: pytest.Config) -> None:
    # The run's first process names the file; xdist's workers inherit it, and so does a pytest run that a test
    # starts (test_impl_option's, test_hidden_cases'), which must not remove the user from under the run.
    if not hasattr(config, "workerinput") and TEST_USER_MADE not in os.environ:
        os.environ[TEST_USER_MADE] = str(Path(tempfile.gettempdir()) / f"dedup-harness-user-{os.getpid()}")
        config.stash[NAMES_USER_FILE] = True
    root = start(config).root
    config.stash[ROOT_KEY] = root
    # The root goes first on sys.path before any test module imports corpus.doc; the data root
    # makes the oracle importable.
    for path in (str(DATA_ROOT), str(root)):
        if path in sys.path:
            sys.path.remove(path)
        sys.path.insert(0, path)
    corpus = importlib.import_module("corpus")
    if Path(corpus.__file__ or "").resolve().parent.parent != root:
        raise pytest.UsageError(f"{IMPL_OPTION} {root}: `corpus` was already imported from {corpus.__file__}")


def pytest_unconfigure(config: pytest.Config) -> None:
    """The test user, made by whichever process first needed it, is removed once the whole run is over."""
    made = Path(os.environ.get(TEST_USER_MADE, ""))
    if config.stash.get(NAMES_USER_FILE, False) and made.is_file():
        subprocess.run(["userdel", made.read_text(encoding="utf-8")], capture_output=True, check=False)
        made.unlink()


def load_in_process(root: Path) -> ModuleType:
    """The root's ``corpus.dedup`` module, imported into this process."""
    module = importlib.import_module("corpus.dedup")
    if Path(module.__file__ or "").resolve().parent.parent != root:
        raise pytest.UsageError(f"corpus.dedup came from {module.__file__}, not from {root}")
    return module


@pytest.fixture(scope="session")
def impl(pytestconfig: pytest.Config) -> Any:
    """The implementation under test: STATS_KEYS, paragraphs, paragraph_hash, bloom_rate, exact_dedup."""
    if IMPL_KEY not in pytestconfig.stash:
        pytestconfig.stash[IMPL_KEY] = load_in_process(pytestconfig.stash[ROOT_KEY])
    return pytestconfig.stash[IMPL_KEY]


@pytest.fixture(autouse=True)
def _global_random_is_left_alone() -> Iterator[None]:
    """Generators own their random.Random; a test that moves the global RNG fails."""
    before = random.getstate()
    yield
    assert random.getstate() == before, "this test changed the global random state"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line naming the tests of NOT_RUN_HERE this run skipped, and what runs them; one more for the
    slow tests the default ``-m "not slow"`` left out."""
    line = not_run_here(str(report.longrepr) for report in terminalreporter.stats.get("skipped", []))
    if line:
        terminalreporter.write_line(line, yellow=True)
    slow = sum(1 for item in terminalreporter.stats.get("deselected", []) if item.get_closest_marker("slow"))
    if slow:
        terminalreporter.write_line(
            f"dedup-harness: {slow} slow tests (the isolation tiers, whole grading runs, the outputs' real readers) "
            "were left out: `pytest -m slow` runs them, as .ci/run does",
            yellow=True,
        )


def not_run_here(reasons: Iterable[str]) -> str:
    """``dedup-harness: not run here: ...`` for the skip reasons NOT_RUN_HERE knows; "" when there are none."""
    counted = Counter(group for reason in reasons for group in NOT_RUN_HERE if group[0] in reason)
    parts = [
        f"{what} ({counted[group]} {'test' if counted[group] == 1 else 'tests'}: {runner})"
        for group in NOT_RUN_HERE
        if counted[group]
        for _, what, runner in [group]
    ]
    if not parts:
        return ""
    ci = any(counted[group] for group in NOT_RUN_HERE if group[2] == ".ci/run")
    how = (
        ". .ci/run installs the consumers and Chromium and sets DEDUP_HARNESS_JUNIT_XSD and DEDUP_HARNESS_NODE_MODULES "
        "(set them to run those checks here)"
        if ci
        else ""
    )
    return f"dedup-harness: not run here: {'; '.join(parts)}{how}"
