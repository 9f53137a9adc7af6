"""run_suite in a fresh interpreter and forked from a warm server: the same outcomes, the same limits."""

from __future__ import annotations

import multiprocessing.context
import multiprocessing.util
import os
import signal
import tempfile
from pathlib import Path

import pytest

from dedup_harness.core import signals
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.procfs import start_ticks
from dedup_harness.core.runner import run_suite, start_fork_server, stop_fork_server
from world import CHECKS, edit, make_world


@pytest.fixture(params=["fresh", "forked"])
def fork(request: pytest.FixtureRequest) -> multiprocessing.context.ForkServerContext | None:
    """Each test runs both ways: a fresh interpreter (None), and a child of the warm fork server."""
    return start_fork_server() if request.param == "forked" else None


# A plugin or conftest that would leave nothing to run, were it loaded.
DROP_EVERY_TEST = "def pytest_collection_modifyitems(items):\n    items.clear()\n"


def test_both_ways_report_every_check(tmp_path: Path, fork: multiprocessing.context.ForkServerContext | None) -> None:
    world = make_world(tmp_path / "world")
    edit(world.impl_root / "corpus" / "dedup.py", '    "docs_out",\n', '    "docs_out",\n    "extra",\n')
    result = run_suite(world.impl_root, suite_dir=world.suite_dir, checks=CHECKS, fork=fork)
    assert result.outcomes == {"test_split": Outcome.PASSED, "test_rate": Outcome.PASSED, "test_keys": Outcome.FAILED}
    assert result.exitstatus == 1


def test_a_run_past_its_time_limit_is_killed_and_its_checks_time_out(
    tmp_path: Path, fork: multiprocessing.context.ForkServerContext | None
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
        fork=fork,
    )
    # The outcomes file is written at the end of the session, which a killed run never reaches.
    assert result.outcomes == dict.fromkeys(CHECKS, Outcome.TIMEOUT)
    assert result.seconds < 30


TMP_CHECK = """
def test_tmp(tmp_path):
    (tmp_path / "left").write_text("by a check")
"""


def test_a_run_leaves_nothing_in_the_system_temp_folder(
    tmp_path: Path, fork: multiprocessing.context.ForkServerContext | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytest's tmp_path lives in the run's scratch folder: a forked child never removes its numbered folders."""
    world = make_world(tmp_path / "world")
    (world.suite_dir / "test_tmp.py").write_text(TMP_CHECK, encoding="utf-8")
    system_temp = tmp_path / "system-temp"
    system_temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_temp))  # where the runner makes its scratch
    result = run_suite(
        world.impl_root,
        suite_dir=world.suite_dir,
        checks=CHECKS,
        env={"TMPDIR": str(system_temp)},  # and where the child's pytest would make its own
        fork=fork,
    )
    assert [case["outcome"] for case in result.cases["test_tmp"]] == ["passed"]
    assert list(system_temp.iterdir()) == []


def test_a_conftest_above_the_suite_is_not_loaded(
    tmp_path: Path, fork: multiprocessing.context.ForkServerContext | None
) -> None:
    """Wherever the suite is installed, a conftest.py in a folder above it takes no part in a run."""
    world = make_world(tmp_path / "world")
    (tmp_path / "world" / "conftest.py").write_text(DROP_EVERY_TEST, encoding="utf-8")
    result = run_suite(world.impl_root, suite_dir=world.suite_dir, checks=CHECKS, fork=fork)
    assert set(result.outcomes.values()) == {Outcome.PASSED}


def test_an_installed_pytest_plugin_is_not_loaded(tmp_path: Path) -> None:
    """A plugin that pytest would load by its entry point (one that reorders or drops tests, say) stays out."""
    site = tmp_path / "site"
    (site / "dropper-1.0.dist-info").mkdir(parents=True)
    (site / "dropper-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: dropper\nVersion: 1.0\n")
    (site / "dropper-1.0.dist-info" / "entry_points.txt").write_text("[pytest11]\ndropper = dropper\n")
    (site / "dropper.py").write_text(DROP_EVERY_TEST)
    world = make_world(tmp_path / "world")
    python_path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH", "")]))
    result = run_suite(world.impl_root, suite_dir=world.suite_dir, checks=CHECKS, env={"PYTHONPATH": python_path})
    assert set(result.outcomes.values()) == {Outcome.PASSED}


def test_a_signal_as_the_fork_server_is_spawned_raises_once_its_pid_is_known_so_it_is_stopped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Else the pid was lost with the signal, and the server warmed up on, writing Hypothesis's tables in a run's
    scratch after that run's last sweep (a grade ended by SIGQUIT as it began)."""
    real, spawned = multiprocessing.util.spawnv_passfds, []

    def spawn_then_signal(path: str, args: list[str], passfds: tuple[int, ...]) -> int:
        spawned.append(real(path, args, passfds))
        os.kill(os.getpid(), signal.SIGTERM)
        return spawned[-1]

    stop_fork_server()
    monkeypatch.setattr(multiprocessing.util, "spawnv_passfds", spawn_then_signal)
    with signals.ending_on_signals(), pytest.raises(signals.Terminated):
        start_fork_server()
    stop_fork_server()
    assert spawned and start_ticks(spawned[-1]) is None, "the fork server outlived the signal"
