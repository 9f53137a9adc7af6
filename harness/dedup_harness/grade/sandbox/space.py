"""The disk a worker's files hold, and removing them: walks that never follow a link and never recurse.

A submission decides how deep its folders go and what its links point at. So these walks count
allocated blocks, not apparent sizes (a sparse file of a terabyte holds a few blocks: it can neither
pass for a copy of the documents nor hide a full disk), look at every entry without following it,
and keep no stack of their own frames: removal holds one folder open at a time and climbs back
through "..", so a tree nested deeper than PATH_MAX or the recursion limit goes as any other (the
worker is stopped by then: nothing moves under it). Measuring a running worker's files goes by path
and skips what lies deeper than a path can name; a disk of its own is measured whole instead
(``disk``).

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
FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _entries(folder: Path) -> Iterator[os.DirEntry[str]]:
    """Every entry under ``folder`` that a path can name, links not followed; folders that vanish are skipped."""
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


def _first_folder_after_emptying(fd: int) -> str | None:
    """Unlink every entry of folder ``fd`` that is not a folder; the name of a folder left in it, if any."""
    with os.scandir(fd) as listing:
        for entry in listing:
            if entry.is_dir(follow_symlinks=False):
                return entry.name
            with contextlib.suppress(OSError):
                os.unlink(entry.name, dir_fd=fd)
    return None


def remove_in(parent: int, name: str) -> None:
    """Remove ``name`` from the folder open as ``parent``, with everything under it; what cannot go stays."""
    with contextlib.suppress(OSError):
        if not stat.S_ISDIR(os.lstat(name, dir_fd=parent).st_mode):
            os.unlink(name, dir_fd=parent)
            return
    try:
        fd = os.open(name, FOLDER, dir_fd=parent)
    except OSError:
        return
    below = [name]  # the names from ``parent`` down to the folder open as ``fd``
    try:
        while below:
            child = _first_folder_after_emptying(fd)
            if child is not None:
                deeper = os.open(child, FOLDER, dir_fd=fd)
                os.close(fd)
                fd = deeper
                below.append(child)
                continue
            up = os.open("..", FOLDER, dir_fd=fd)
            os.close(fd)
            fd = up
            os.rmdir(below.pop(), dir_fd=fd)  # a folder that will not go ends the walk: no endless loop
    except OSError:
        pass
    finally:
        os.close(fd)


def empty(folder: Path) -> None:
    """Remove everything inside ``folder``, and keep the folder."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, FOLDER)
        try:
            for name in os.listdir(fd):
                remove_in(fd, name)
        finally:
            os.close(fd)


def remove_owned_by(uid: int, folders: Iterable[str]) -> None:
    """Remove every entry of ``folders`` (not below them) that belongs to ``uid``."""
    for folder in folders:
        with contextlib.suppress(OSError):
            fd = os.open(folder, FOLDER)
            try:
                for name in os.listdir(fd):
                    with contextlib.suppress(OSError):
                        if os.lstat(name, dir_fd=fd).st_uid == uid:
                            remove_in(fd, name)
            finally:
                os.close(fd)
