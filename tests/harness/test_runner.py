"""run_suite in a fresh interpreter and forked from a warm server: the same outcomes, the same limits."""

from __future__ import annotations

import multiprocessing.context
from pathlib import Path

import pytest

from dedup_harness.outcome import Outcome
from dedup_harness.runner import run_suite, start_fork_server
from world import CHECKS, edit, make_world


@pytest.fixture(scope="module")
def fork() -> multiprocessing.context.ForkServerContext:
    return start_fork_server()


@pytest.mark.parametrize("forked", [False, True], ids=["fresh", "forked"])
def test_both_ways_report_every_check(
    tmp_path: Path, fork: multiprocessing.context.ForkServerContext, forked: bool
) -> None:
    world = make_world(tmp_path / "world")
    edit(world.impl_root / "corpus" / "dedup.py", '    "docs_out",\n', '    "docs_out",\n    "extra",\n')
    result = run_suite(world.impl_root, suite_dir=world.suite_dir, checks=CHECKS, fork=fork if forked else None)
    assert result.outcomes == {"test_split": Outcome.PASSED, "test_rate": Outcome.PASSED, "test_keys": Outcome.FAILED}
    assert result.exitstatus == 1


@pytest.mark.parametrize("forked", [False, True], ids=["fresh", "forked"])
def test_a_run_past_its_time_limit_is_killed_and_its_checks_time_out(
    tmp_path: Path, fork: multiprocessing.context.ForkServerContext, forked: bool
) -> None:
    world = make_world(tmp_path / "world")
    line = "    b = bloom_bytes_per_item\n"
    edit(world.impl_root / "corpus" / "dedup.py", line, line + "    while b:\n        pass\n")
    result = run_suite(
        world.impl_root,
        suite_dir=world.suite_dir,
        checks=CHECKS,
        timeout=3.0,
        check_timeout=60.0,
        fork=fork if forked else None,
    )
    # The outcomes file is written at the end of the session, which a killed run never reaches.
    assert result.outcomes == dict.fromkeys(CHECKS, Outcome.TIMEOUT)
    assert result.seconds < 30
