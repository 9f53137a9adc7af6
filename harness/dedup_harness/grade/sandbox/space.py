"""The disk a worker's files hold, and removing them: walks that never follow a link and never recurse.

A submission decides how deep its folders go and what its links point at; so these walks keep their
own stack (a folder nested ten thousand deep is no ``RecursionError``), look at every entry without
following it, and count allocated blocks, not apparent sizes: a sparse file of a terabyte holds a
few blocks, and cannot pass for a copy of the documents nor hide a full disk.

(A private version: ``core/removal.py`` is to give the harness one iterative walk and one measure of
use in blocks; these then become calls to it.)
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

BLOCK = 512  # st_blocks counts 512-byte units whatever the file system's block size


def _entries(folder: Path) -> Iterator[os.DirEntry[str]]:
    """Every entry under ``folder``, depth first, links not followed; folders that vanish are skipped."""
    stack = [str(folder)]
    while stack:
        with contextlib.suppress(OSError), os.scandir(stack.pop()) as listing:
            for entry in listing:
                yield entry
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)


def blocks_used(folder: Path) -> int:
    """Bytes of disk allocated to everything under ``folder``."""
    total = 0
    for entry in _entries(folder):
        with contextlib.suppress(OSError):
            total += entry.stat(follow_symlinks=False).st_blocks * BLOCK
    return total


def _remove(path: str) -> None:
    """Remove ``path`` (a folder with everything in it), deepest first, without following a link."""
    folders = [path]
    with contextlib.suppress(OSError):
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
            return
    for entry in _entries(Path(path)):
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)
            else:
                os.unlink(entry.path)
    for folder in reversed(folders):  # a folder comes after every folder above it: deepest first
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def empty(folder: Path) -> None:
    """Remove everything inside ``folder``, and keep the folder."""
    with contextlib.suppress(OSError), os.scandir(folder) as listing:
        for entry in list(listing):
            _remove(entry.path)


def remove_owned_by(uid: int, folders: Iterable[str]) -> None:
    """Remove every entry of ``folders`` (not below them) that belongs to ``uid``."""
    for folder in folders:
        with contextlib.suppress(OSError), os.scandir(folder) as listing:
            for entry in list(listing):
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_uid == uid:
                        _remove(entry.path)
