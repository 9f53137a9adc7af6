"""The sweep of what dead runs left: any shape goes, what cannot go is one line, and asking for help touches nothing.

A stale entry is named for a process that cannot exist (a pid above the kernel's largest), as a run
killed outright leaves it. The commands run for real, in a process of their own, with TMPDIR on the
folder under test.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dedup_harness.core import scratch_dirs
from tree_shapes import NOBODY, as_user, chain, fast_folder, give, odd_entries

DEAD = 99_999_999  # above any pid_max: no live process has it
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="acting as another user needs root")


def stale(folder: Path, kind: str = "session", *, depth: int = 3_000) -> Path:
    """What a grader killed outright leaves: a session whose spool holds a deep chain and odd entries."""
    top = folder / f"{scratch_dirs.PREFIX}{kind}-{DEAD}.123-abc"
    spool = top / "shared" / "spool"
    spool.mkdir(parents=True)
    chain(spool, depth)
    victim = folder / "victim"
    victim.mkdir(exist_ok=True)
    (victim / "keep.txt").write_text("still here\n", encoding="utf-8")
    odd_entries(spool, victim)
    return top


def harness(*args: str, temp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(temp)}
    command = [sys.executable, "-m", "dedup_harness.cli", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(
    "args",
    [["--version"], ["--help"], ["grade", "--help"], ["merge", "--no-such-option"]],
    ids=["version", "help", "a command's help", "a bad argument"],
)
def test_version_help_and_bad_arguments_never_touch_scratch(tmp_path: Path, args: list[str]) -> None:
    with fast_folder(tmp_path) as temp:
        left = stale(temp, depth=50)
        done = harness(*args, temp=temp)
        assert done.returncode in (0, 2) and "Traceback" not in done.stderr, done.stderr
        assert (left / "shared" / "spool" / "d" / "d").is_dir()


def test_a_command_sweeps_a_dead_graders_deep_session_and_version_works_before_and_after(tmp_path: Path) -> None:
    with fast_folder(tmp_path) as temp:
        left = stale(temp)
        assert harness("--version", temp=temp).returncode == 0
        done = harness("merge", str(temp / "no-such.csv"), temp=temp)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "cannot read" in done.stderr and "Traceback" not in done.stderr
        assert not left.exists()
        assert (temp / "victim" / "keep.txt").read_text(encoding="utf-8") == "still here\n"
        assert harness("--version", temp=temp).returncode == 0


@needs_root
def test_what_a_sweep_cannot_remove_is_one_line_and_the_sweep_goes_on(tmp_path: Path) -> None:
    """A grader that is not root meets a root grader's stale session: it says so and removes the rest."""
    with fast_folder(tmp_path) as temp:
        roots = stale(temp, "session", depth=20)
        mine = stale(temp, "run", depth=20)
        give(mine, NOBODY)
        give(roots / "shared" / "spool", NOBODY)  # the worker's; the folders above it stay root's
        os.chown(temp, NOBODY, NOBODY)

        def sweep() -> list[str]:
            said = io.StringIO()
            with contextlib.redirect_stderr(said):
                removed = scratch_dirs.sweep(temp)
            return [*map(str, removed), said.getvalue()]

        *removed, said = as_user(NOBODY, sweep)
        assert removed == [str(mine)] and not mine.exists()
        assert said.count("\n") == 1 and said.startswith(f"dedup-harness: could not remove {roots}: ")
        assert "Permission denied" in said and said.endswith("; carrying on\n")


def test_a_scratch_folder_goes_whatever_was_made_in_it(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("still here\n", encoding="utf-8")
    with scratch_dirs.Scratch("run", tmp_path) as name:
        chain(Path(name), 3_000)
        odd_entries(Path(name), victim)
    assert not Path(name).exists()
    assert (victim / "keep.txt").read_text(encoding="utf-8") == "still here\n"


class TestWithoutProc:
    """Where /proc cannot be read (macOS, a /proc hidden behind a mount), an owner is alive while its pid is."""

    def test_a_live_owners_scratch_stays_and_a_dead_ones_goes(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(scratch_dirs.procfs, "available", lambda: False)
        monkeypatch.setattr(scratch_dirs, "start_ticks", lambda pid: None)
        live = tmp_path / f"{scratch_dirs.PREFIX}run-{os.getppid()}.0-abcdefgh"
        dead = tmp_path / f"{scratch_dirs.PREFIX}run-{DEAD}.0-abcdefgh"
        live.mkdir()
        dead.mkdir()
        assert scratch_dirs.sweep(tmp_path) == [dead]
        assert live.is_dir()

    def test_a_name_written_where_proc_was_read_still_goes_when_its_owner_has(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(scratch_dirs.procfs, "available", lambda: False)
        monkeypatch.setattr(scratch_dirs, "start_ticks", lambda pid: None)
        assert scratch_dirs.is_dead(f"{scratch_dirs.PREFIX}run-{DEAD}.123-abcdefgh")
        assert not scratch_dirs.is_dead(f"{scratch_dirs.PREFIX}run-{os.getppid()}.123-abcdefgh")
