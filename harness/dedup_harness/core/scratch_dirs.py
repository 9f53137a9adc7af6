"""Scratch that names the process owning it, and the sweep of what dead runs left behind.

Everything temporary a run makes (suite runs, grade's, verify's and mutation's scratch, dedup's spool
folder, a sandbox session, an output's part file) is named ``dedup-harness-<kind>-<pid>.<start>-...``
(a part file with a leading dot): the owner's pid and start time in clock ticks since boot, so a
reused pid is not taken for the owner. Without /proc (``check`` on macOS) the start is 0 and an owner
is alive while its pid is: stale scratch may then stay a little longer, live scratch is never swept.
A run killed outright cannot clean up; the next run of any command sweeps what such runs left in the
temp folder (dedup in its spool folder, an output in its own). Names without an owner are never
touched. What a submission may have written into is removed with ``core.removal``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from dedup_harness.core import procfs, removal
from dedup_harness.core.procfs import start_ticks

PREFIX = "dedup-harness-"
HYPOTHESIS_HOME_ENV = "HYPOTHESIS_STORAGE_DIRECTORY"  # where Hypothesis keeps its files (see hypothesis_home)
_OWNED = re.compile(r"^\.?dedup-harness-[a-z]+-(?P<pid>\d+)\.(?P<start>\d+)-")
_watched: set[Path] = set()  # folders beside the temp folder that this run made scratch in


@functools.cache
def _tag(pid: int) -> str:
    return f"{pid}.{start_ticks(pid) or 0}"


def owner_tag() -> str:
    """``<pid>.<start>`` of this process (a forked child gets its own)."""
    return _tag(os.getpid())


def prefix(kind: str) -> str:
    """The name prefix of this process's scratch of ``kind`` (a lowercase word: run, grade, session...)."""
    return f"{PREFIX}{kind}-{owner_tag()}-"


def part_prefix() -> str:
    """The name prefix of an output's part file: hidden, and swept like any other scratch."""
    return "." + prefix("part")


@contextlib.contextmanager
def hypothesis_home() -> Iterator[None]:
    """While in the block, Hypothesis writes in this run's scratch, here and in every process started here.

    Left alone, Hypothesis keeps its caches (Unicode tables, the constants it finds in modules), its
    example database and its patches under ``./.hypothesis/`` of the folder a process started in:
    a fork server started from a TA's folder would leave one there. The variable is read by each
    process when it first needs the folder, so the suite runs, the fork server and mutmut all follow it;
    the folder is named by this process and goes with the rest of its scratch. A caller who set the
    variable has chosen, and keeps their choice.
    """
    if os.environ.get(HYPOTHESIS_HOME_ENV):
        yield
        return
    os.environ[HYPOTHESIS_HOME_ENV] = str(Path(tempfile.gettempdir()) / f"{prefix('hypothesis')}home")
    try:
        yield
    finally:
        os.environ.pop(HYPOTHESIS_HOME_ENV, None)


def watch(folder: Path) -> None:
    """Sweep ``folder`` now, the first time this run makes scratch in it, and again when the run ends."""
    if folder not in _watched:
        _watched.add(folder)  # first: a signal during the sweep below leaves the folder in the run's last one
        sweep(folder)  # what runs killed outright left there


def is_dead(name: str, *, mine: bool = False) -> bool:
    """Does ``name`` belong to a process that is gone (or, with ``mine``, to this one)?"""
    match = _OWNED.match(name)
    if match is None:
        return False
    pid, start = int(match["pid"]), int(match["start"])
    if mine and pid == os.getpid():
        return True
    ticks = start_ticks(pid)
    if ticks is None and not procfs.available():
        return not _alive(pid)
    return ticks is None or (start != 0 and ticks != start)


def _alive(pid: int) -> bool:
    """Is there a process ``pid`` (asked of the kernel by a signal 0, on any POSIX system)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: alive
        return True
    return True


def sweep(folder: Path, *, mine: bool = False) -> list[Path]:
    """Remove the scratch in ``folder`` whose owner is dead (and, with ``mine``, this process's own).

    What was removed; what could not be is one line each on stderr, and the sweep goes on.
    """
    stale: list[Path] = []
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        stale = [Path(e.path) for e in entries if e.name.lstrip(".").startswith(PREFIX) and is_dead(e.name, mine=mine)]
    return [path for path in stale if remove(path)]


def remove(path: Path) -> bool:
    """Remove ``path`` and all under it, however it was shaped; False (and one line on stderr) if some is left."""
    left = removal.remove_tree(path)
    if left:
        print(f"dedup-harness: {left.line()}; carrying on", file=sys.stderr)
    return not left


class Scratch:
    """A scratch folder of ``kind`` named for this process, removed with ``core.removal`` when done.

    It stands where ``tempfile.TemporaryDirectory`` would, for scratch that code under test may have
    written into: that removal recurses and gives up on a deep or unreadable tree.
    """

    def __init__(self, kind: str, folder: Path | str | None = None) -> None:
        self.name = tempfile.mkdtemp(prefix=prefix(kind), dir=folder)

    def __enter__(self) -> str:
        return self.name

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.cleanup()

    def cleanup(self) -> None:
        remove(Path(self.name))


def sweep_all(*, mine: bool = False) -> list[Path]:
    """Sweep the temp folder and every watched folder; ``mine`` when this run is ending."""
    folders = [Path(tempfile.gettempdir()), *sorted(_watched)]
    if mine:
        _watched.clear()
    return [path for folder in folders for path in sweep(folder, mine=mine)]
