"""pytest's arguments for one run of the suite, and the names of what a run leaves in its scratch folder."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from dedup_harness.core.impl_under_test import impl_args
from dedup_harness.core.outcome_recorder import plugin_args
from dedup_harness.core.paths import SUITE_DIR

# What a run leaves in its scratch folder: the outcome recorder's file and pytest's base temp folder
# (and, a forked run, what fork_server.py names).
OUTCOMES_NAME = "outcomes.json"
BASETEMP_NAME = "tmp"
# A fresh suite process: pytest, with Hypothesis imported first. pytest assertion-rewrites every module
# of a plugin's distribution, and with bytecode writes off it would compile all of Hypothesis on every
# run (about a second); imported first, Hypothesis is left as it is (pytest_args silences the warning).
BOOT = "import sys, hypothesis, pytest; sys.exit(pytest.main())"
# Every run here is read from the outcome recorder's file (and the plugins' own), never from pytest's text,
# so it skips what only a person reading that text would need: Hypothesis's pytest plugin (its only work
# would be writing @example patches for a failing property, importing libcst to do so; Hypothesis itself
# runs as always, and the falsifying example still travels in the exception's notes), the end-of-session
# garbage collections that look for unraisable exceptions (0.2 s a run), and assertion rewriting (every
# check's verdict says what was expected and what came back, and pytest's comparison of a 200-document
# output would only cost time).
UNREAD = ("-p", "no:hypothesispytest", "-p", "no:unraisableexception", "--assert=plain")


def pytest_args(
    root: Path,
    outcomes_file: Path,
    *,
    check_timeout: float,
    extra: Sequence[str] = (),
    suite_dir: Path = SUITE_DIR,
) -> list[str]:
    """pytest's arguments for one run of the suite in ``suite_dir`` against ``root``."""
    return [
        str(suite_dir),
        *impl_args(root),
        *plugin_args(outcomes_file, check_timeout=check_timeout),
        # The suite's own settings, whatever ini file lies around the working directory.
        "-c",
        os.devnull,
        f"--rootdir={suite_dir.parent}",
        # No conftest.py from the folders above the suite's (wherever it is installed), and no
        # walk through them when collecting.
        f"--confcutdir={suite_dir.parent}",
        "-p",
        "no:cacheprovider",
        # tmp_path under the run's own scratch folder: a forked child ends with os._exit, so pytest's
        # numbered folders under the system temp would keep their lock files and pile up, and every
        # later run would scan them all.
        f"--basetemp={outcomes_file.parent / BASETEMP_NAME}",
        "-q",
        "--no-header",
        "-rN",
        # Hypothesis (see BOOT), or a fork server's harness, is imported before pytest could rewrite it.
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        *UNREAD,
        *extra,
    ]


def suite_command(
    root: Path, outcomes_file: Path, *, check_timeout: float, extra: Sequence[str] = (), suite_dir: Path = SUITE_DIR
) -> list[str]:
    """The command line of a fresh suite process (see BOOT)."""
    args = pytest_args(root, outcomes_file, check_timeout=check_timeout, extra=extra, suite_dir=suite_dir)
    return [sys.executable, "-c", BOOT, *args]
