"""Where a stage may write besides its spool_dir, watched around a block: what it left there, by name.

A copy of the input left anywhere the stage could write outlives it as a spool left under
``spool_dir`` does (docs/checks.md). ``left(spool_dir)`` names what is new or changed (inode, size or
change time, which no stage can set back) in the watched folders since the watch was entered, the
spool folder aside. In-process (verify, ``check``) ``TempFolder`` points ``tempfile`` at a fresh folder
under the judge's scratch and watches both; the grader puts its own watch in the stash
(``WRITES_KEY``): the worker's home and the session's shared folder, read from outside the worker.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Protocol

import pytest

from dedup_harness.core.removal import CUT, Snapshot, snapshot


class WriteWatch(Protocol):
    """A context manager around a block; ``left`` names what is new or changed once it exited."""

    def __enter__(self) -> WriteWatch: ...

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None: ...

    def left(self, spool_dir: Path) -> list[str]: ...


WRITES_KEY = pytest.StashKey[Callable[[Path], WriteWatch]]()  # a watch, given the judge's scratch folder


class WatchedFolders:
    """Watches ``folders`` (each with the words a verdict names it by), each snapshot on entry and on exit
    (at most ``limit`` entries: past it, the cut is named as left, for nothing may hide beyond it)."""

    def __init__(self, folders: dict[Path, str], *, limit: int = 1 << 17) -> None:
        self.folders = folders
        self.limit = limit
        self.before: dict[Path, Snapshot] = {}
        self.after: dict[Path, Snapshot] = {}

    def __enter__(self) -> WatchedFolders:
        self.before = {folder: snapshot(folder, limit=self.limit) for folder in self.folders}
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.after = {folder: snapshot(folder, limit=self.limit) for folder in self.folders}

    def left(self, spool_dir: Path) -> list[str]:
        found = []
        for folder, words in self.folders.items():
            # The spool folder, and any other watched folder inside this one, are judged on their own.
            inside = [spool_dir, *(other for other in self.folders if other != folder)]
            aside = [name for name in (_relative(path, folder) for path in inside) if name is not None]
            new = changed(self.before.get(folder, {}), self.after.get(folder, {}), aside)
            found += [f"{name} (in {words})" if name != CUT else f"more than {self.limit:,} entries in {words}"
                      for name in new]  # fmt: skip
        return found


def changed(before: Snapshot, after: Snapshot, aside: list[str]) -> list[str]:
    """The entries of ``after`` that ``before`` lacked or held otherwise (a folder only when it is new), those
    under a path of ``aside`` left out; sorted."""
    found = []
    for name, state in after.items():
        if any(name == path or name.startswith(path + "/") for path in aside):
            continue
        earlier = before.get(name)
        if earlier is None or (not state.folder and earlier != state):
            found.append(name)
    return sorted(found)


def _relative(path: Path, folder: Path) -> str | None:
    try:
        relative = path.resolve().relative_to(folder.resolve())
    except ValueError:
        return None
    return str(relative) if str(relative) != "." else None


class TempFolder(WatchedFolders):
    """In-process: ``tempfile``'s folder is a fresh one under ``scratch`` for the block; both are watched."""

    def __init__(self, scratch: Path, *, also: dict[Path, str] | None = None) -> None:
        super().__init__({})  # the folders are known once the temp folder is made, on entry
        self.scratch = scratch
        self.also = also or {}  # more folders to watch (``check``: the stage's home and working folder)
        self.earlier: str | None = None

    def __enter__(self) -> TempFolder:
        self.earlier = tempfile.tempdir
        temp = tempfile.mkdtemp(prefix="temp-", dir=self.scratch)
        self.folders = {self.scratch: "the check's folder", Path(temp): "the temp folder tempfile picks", **self.also}
        tempfile.tempdir = temp
        super().__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        try:
            super().__exit__(kind, error, trace)
        finally:
            tempfile.tempdir = self.earlier
