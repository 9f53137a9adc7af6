"""Remove, measure and list a folder tree whatever shape a submission gave it: iteratively, through descriptors.

A submission shapes what it leaves: a chain of 100,000 nested folders made through descriptors (no
path is ever long), folders of mode 000, names with newlines, bytes that are not UTF-8 or a leading
dash, FIFOs, sockets, hard links, symlinks to anything. ``shutil.rmtree`` and ``os.walk`` recurse once
per level (a chain of a few thousand raises RecursionError, which ``ignore_errors`` does not catch)
and build paths that grow with the depth. Every walk here is ``core.tree_walk``'s; a symlink, FIFO or
socket is only ever lstat'ed or unlinked, never opened. Nothing raises for what it meets: removal
returns what it could not remove, so a sweep can say so in one line and carry on.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from dedup_harness.core.tree_walk import Leaver, PathLike, Reader, Walk, is_folder, open_top, visit

BLOCK = 512  # st_blocks counts 512-byte units, whatever the file system's own block size
SHOWN = 3  # leftovers a summary names
SHOWN_CHARACTERS = 160  # of one path in a message: its start and its end


@dataclass
class Leftovers:
    """What a removal could not remove: how many entries, and the first few with the reason."""

    path: str
    count: int = 0
    first: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.count > 0

    def add(self, path: str, error: OSError | str) -> None:
        self.count += 1
        if len(self.first) < SHOWN:
            reason = error if isinstance(error, str) else (error.strerror or type(error).__name__)
            self.first.append(f"{printable(path)}: {reason}")

    def line(self) -> str:
        """One line that says what was left (empty when everything went)."""
        if not self:
            return ""
        return f"could not remove {printable(self.path)}: {self.count} left (first: {'; '.join(self.first)})"


def escaped(path: str | bytes) -> str:
    """``path`` as text on one line: bytes that are not UTF-8 and control characters written as escapes."""
    if isinstance(path, str) and path.isprintable():  # no surrogates either: its bytes decode back to it
        return path  # the common case, at C speed: a deep tree's snapshot escapes thousands of long paths
    raw = path if isinstance(path, bytes) else os.fsencode(path)
    text = raw.decode("utf-8", "backslashreplace")
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def printable(path: str | bytes) -> str:
    """``path`` on one short line (``escaped``), a long one cut in the middle."""
    text = escaped(path)
    if len(text) > SHOWN_CHARACTERS:
        half = SHOWN_CHARACTERS // 2
        text = f"{text[:half]}...{text[-half:]}"
    return text


# -- removal ----------------------------------------------------------------------------------------


def remove_tree(path: PathLike) -> Leftovers:
    """Remove ``path`` and everything under it (or the single entry it names); what could not be removed.

    What does not exist is removed already. Nothing is raised for what the tree holds.
    """
    left = Leftovers(os.path.abspath(os.fspath(path)))
    opened = open_top(path)
    if isinstance(opened, OSError):
        if not isinstance(opened, FileNotFoundError):
            left.add(left.path, opened)
        return left
    top, parent, name = opened
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            visit(Walk.open(top, parent, name, fix=True), _unlink_entries(left), _rmdir(left), left.add)
        _remove(parent, name, lambda: top, left, folder=stat.S_ISDIR(info.st_mode))
    except FileNotFoundError:
        pass
    except OSError as error:
        left.add(top, error)
    finally:
        os.close(parent)
    return left


def empty(folder: PathLike) -> None:
    """Remove everything inside ``folder`` and keep the folder (what cannot go stays)."""
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            remove_tree(os.path.join(folder, name))


def _remove(fd: int, name: str, where: Callable[[], str], left: Leftovers, *, folder: bool) -> None:
    """Unlink or rmdir ``name`` of ``fd``; a failure is counted (``where`` spells the path only then)."""
    try:
        (os.rmdir if folder else os.unlink)(name, dir_fd=fd)
    except FileNotFoundError:
        pass
    except OSError as error:
        if not (folder and error.errno == errno.ENOTEMPTY and left):  # what it still holds is counted already
            left.add(where(), error)


def _unlink_entries(left: Leftovers) -> Reader:
    def read(walk: Walk, entries: list[os.DirEntry[str]]) -> None:
        for entry in entries:
            if not is_folder(entry):
                _remove(walk.fd, entry.name, functools.partial(walk.path, entry.name), left, folder=False)

    return read


def _rmdir(left: Leftovers) -> Leaver:
    return lambda walk, name: _remove(walk.fd, name, functools.partial(walk.path, name), left, folder=True)


# -- measuring and listing ------------------------------------------------------------------------------


class Allocation(NamedTuple):
    bytes: int  # every entry's allocated blocks, in bytes
    entries: int  # files, folders and the rest, the top not counted


def allocated_bytes(path: PathLike) -> int:
    """The disk the tree at ``path`` takes: every entry's allocated blocks (a sparse file counts what it holds).

    0 when it does not exist; what cannot be read counts as nothing.
    """
    return allocation(path).bytes


def allocation(path: PathLike, *, most_entries: int | None = None) -> Allocation:
    """The disk the tree at ``path`` takes and how many entries it holds; past ``most_entries`` the walk stops
    (the count is then one more), so its cost stays bounded whatever a submission planted."""
    total, count = [0], [0]

    def read(walk: Walk, entries: list[os.DirEntry[str]]) -> None:
        for entry in entries:
            if most_entries is not None and count[0] > most_entries:
                _enough(walk, entries)
                return
            count[0] += 1
            with contextlib.suppress(OSError):
                total[0] += entry.stat(follow_symlinks=False).st_blocks * BLOCK

    def top(info: os.stat_result) -> None:
        total[0] += info.st_blocks * BLOCK

    _read_tree(path, read, top)
    return Allocation(total[0], count[0])


def entries_under(folder: PathLike, *, limit: int = 100) -> list[str]:
    """The paths (relative to ``folder``) of what lies under it, at most ``limit``: each folder's sorted
    entries, its subfolders' after them. Empty when there is nothing, or no such folder.

    Each is text any report can carry: bytes that are not UTF-8 and control characters escaped.
    """
    found: list[str] = []

    def read(walk: Walk, entries: list[os.DirEntry[str]]) -> None:
        found.extend(escaped(walk.relative(entry.name)) for entry in entries[: max(0, limit - len(found))])
        if len(found) >= limit:
            _enough(walk, entries)

    _read_tree(folder, read)
    return found


def _read_tree(path: PathLike, read: Reader, top: Callable[[os.stat_result], None] | None = None) -> None:
    """Every folder of the tree at ``path`` told to ``read`` (``top`` told of ``path`` itself first); what does not
    exist or cannot be opened is nothing."""
    opened = open_top(path)
    if isinstance(opened, OSError):
        return
    full, parent, name = opened
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if top is not None:
            top(info)
        if stat.S_ISDIR(info.st_mode):
            visit(Walk.open(full, parent, name), read, lambda walk, name: None, lambda path, error: None)
    except OSError:
        pass
    finally:
        os.close(parent)


def _enough(walk: Walk, entries: list[os.DirEntry[str]]) -> None:
    """Nothing more is entered: the walk only climbs back."""
    entries.clear()
    for frame in walk.frames:
        frame.pending = []


class State(NamedTuple):
    """What says whether an entry changed: a file's inode, size and change time (which no one can set back)."""

    folder: bool
    inode: int
    size: int
    changed_ns: int


Snapshot = dict[str, State]  # by the entry's path relative to the folder, escaped as ``entries_under`` does
CUT = "..."  # the name under which a snapshot says it stopped at its limit
DEEP = 512  # characters of a folder's path that key its entries in a snapshot; past them, its inode does


def snapshot(folder: PathLike, *, limit: int = 1 << 17) -> Snapshot:
    """Every entry under ``folder`` (at most ``limit``; past it, one more named ``CUT``) with its ``State``; empty
    when there is no such folder.

    An entry's key is its path, but for a folder deeper than ``DEEP`` characters: the first of them, then
    ``CUT`` and the folder's inode (the same in two snapshots while the folder stays). So a key costs at most
    ``DEEP`` characters and a name, whatever a chain of folders a submission planted.
    """
    found: Snapshot = {}

    def read(walk: Walk, entries: list[os.DirEntry[str]]) -> None:
        where = _key(walk)
        for entry in entries:
            if len(found) >= limit:
                found[CUT] = State(False, 0, 0, 0)
                _enough(walk, entries)
                return
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                folder = stat.S_ISDIR(info.st_mode)
                key = f"{where}/{escaped(entry.name)}" if where else escaped(entry.name)
                found[key] = State(folder, info.st_ino, info.st_size, info.st_ctime_ns)

    _read_tree(folder, read)
    return found


def _key(walk: Walk) -> str:
    """The current folder's part of its entries' keys in a snapshot."""
    path = walk.relative(most=DEEP + 1)
    return escaped(path) if len(path) <= DEEP else f"{escaped(path[:DEEP])}{CUT}(inode {walk.frame.ident[1]})"
