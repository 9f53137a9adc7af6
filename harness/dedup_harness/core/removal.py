"""Remove, measure and list a folder tree whatever shape a submission gave it: iteratively, through descriptors.

A submission shapes what it leaves in the folders it may write: a chain of 100,000 nested folders
made through folder descriptors (no path is ever long), folders it made unreadable (mode 000) or
unwritable, names with newlines, bytes that are not UTF-8 or a leading dash, FIFOs, sockets, hard
links, symlinks to anything. ``shutil.rmtree`` and ``os.walk`` recurse once per level (a chain of
a few thousand raises RecursionError, which ``ignore_errors`` does not catch) and build paths that
grow with the depth. Here:

- one folder is open at a time, entered by name from its parent's descriptor with
  O_NOFOLLOW|O_DIRECTORY: a symlink is never followed out of the tree (a symlink, FIFO or socket is
  only ever lstat'ed or unlinked, never opened);
- the way back up is "..", checked against the device and inode recorded on the way down: a tree
  moved meanwhile stops the walk instead of leading it elsewhere;
- a mount point (another device, or a mount this process's /proc/self/mountinfo lists under the
  tree: a bind mount shares the device) is not entered;
- a folder its owner may not open gets its owner's rwx back (the owner's right, or root's), through
  an O_PATH descriptor, so the change cannot land on a symlink's target; removal also gives them
  back to a folder its owner may not write in.

Nothing here raises for what it meets in the tree: removal returns what it could not remove, so a
sweep can say so in one line and carry on.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field

FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
HANDLE = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
OWNER_ALL = stat.S_IRWXU
BLOCK = 512  # st_blocks counts 512-byte units, whatever the file system's own block size
SHOWN = 3  # leftovers a summary names
SHOWN_CHARACTERS = 160  # of one path in a message: its start and its end

PathLike = str | os.PathLike[str]


class _Moved(Exception):
    """The tree changed under the walk: ".." is no longer the folder it came down from."""


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


# -- one folder open at a time -------------------------------------------------------------------


@dataclass
class _Frame:
    name: str  # in its parent
    ident: tuple[int, int]  # (st_dev, st_ino)
    pending: list[str] | None = None  # subfolders still to visit (the last first); None until it is read


def _owner_rights(fd: int, mode: int) -> None:
    """Give the folder open on ``fd`` back its owner's rwx, if the submission took them away."""
    if mode & OWNER_ALL != OWNER_ALL:
        with contextlib.suppress(OSError):
            os.fchmod(fd, stat.S_IMODE(mode) | OWNER_ALL)


def _open_folder(parent: int, name: str) -> int:
    """Folder ``name`` of ``parent``, opened without following a symlink; if its owner may not read it, fixed first."""
    try:
        return os.open(name, FOLDER, dir_fd=parent)
    except PermissionError:
        handle = os.open(name, HANDLE, dir_fd=parent)  # needs no permission on the folder itself
        try:
            # The descriptor's /proc link is the folder itself: chmod cannot be led to a symlink's target.
            os.chmod(f"/proc/self/fd/{handle}", stat.S_IMODE(os.fstat(handle).st_mode) | OWNER_ALL)
        finally:
            os.close(handle)
        return os.open(name, FOLDER, dir_fd=parent)


def _mount_roots(top: str) -> frozenset[tuple[int, int]]:
    """(device, inode) of every mount point under ``top`` in this process's mount namespace."""
    try:
        with open("/proc/self/mountinfo", "rb") as table:
            lines = table.read().splitlines()
    except OSError:
        return frozenset()
    real = os.fsencode(os.path.realpath(top))
    points = [_unescape(line.split()[4]) for line in lines if len(line.split()) > 4]
    roots = set()
    for point in points:
        if point.startswith(real + b"/"):
            with contextlib.suppress(OSError):
                info = os.stat(point)
                roots.add((info.st_dev, info.st_ino))
    return frozenset(roots)


def _unescape(field: bytes) -> bytes:
    """A mountinfo path: space, tab, newline and backslash are written as octal escapes."""
    for escaped, raw in ((b"\\040", b" "), (b"\\011", b"\t"), (b"\\012", b"\n"), (b"\\134", b"\\")):
        field = field.replace(escaped, raw)
    return field


class _Walk:
    """A descent through a tree with one folder open: down by name, up by a checked ".."."""

    def __init__(self, top: str, fd: int, *, fix: bool) -> None:
        info = os.fstat(fd)
        self.fix = fix  # give every folder entered its owner's rwx (to remove what it holds)
        if fix:
            _owner_rights(fd, info.st_mode)
        self.top = top
        self.fd = fd
        self.device = info.st_dev
        self.mounts = _mount_roots(top)
        self.frames = [_Frame("", (info.st_dev, info.st_ino))]

    @classmethod
    def open(cls, top: str, parent: int, name: str, *, fix: bool = False) -> _Walk:
        return cls(top, _open_folder(parent, name), fix=fix)

    @property
    def frame(self) -> _Frame:
        return self.frames[-1]

    def relative(self, name: str = "") -> str:
        """The current folder's path (or that of ``name`` in it), relative to the top."""
        return "/".join([*(frame.name for frame in self.frames[1:]), *([name] if name else [])])

    def path(self, name: str = "") -> str:
        relative = self.relative(name)
        return f"{self.top}/{relative}" if relative else self.top

    def down(self, name: str) -> None:
        """Enter subfolder ``name``; OSError when it cannot be opened or lies on another device."""
        child = _open_folder(self.fd, name)
        info = os.fstat(child)
        if info.st_dev != self.device or (info.st_dev, info.st_ino) in self.mounts:
            os.close(child)
            raise OSError(errno.EXDEV, "another file system is mounted there; not entered")
        if self.fix:
            _owner_rights(child, info.st_mode)
        os.close(self.fd)
        self.fd = child
        self.frames.append(_Frame(name, (info.st_dev, info.st_ino)))

    def up(self) -> str | None:
        """Back to the parent folder; the name of the folder just left, or None at the top."""
        if len(self.frames) == 1:
            return None
        left = self.frames.pop()
        parent = os.open("..", FOLDER, dir_fd=self.fd)
        info = os.fstat(parent)
        if (info.st_dev, info.st_ino) != self.frame.ident:
            os.close(parent)
            raise _Moved(self.path(left.name))
        os.close(self.fd)
        self.fd = parent
        return left.name

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


Reader = Callable[[_Walk, list[os.DirEntry[str]]], None]  # told each folder's entries once
Leaver = Callable[[_Walk, str], None]  # told each subfolder once everything under it was visited
OnError = Callable[[str, "OSError | str"], None]


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _visit(walk: _Walk, read: Reader, leave: Leaver, on_error: OnError) -> None:
    """Every folder of the tree once, parents first: ``read`` is given its entries, ``leave`` its end."""
    try:
        while True:
            frame = walk.frame
            if frame.pending is None:
                frame.pending = []
                try:
                    with os.scandir(walk.fd) as scan:
                        entries = sorted(scan, key=lambda entry: entry.name)
                except OSError as error:
                    on_error(walk.path(), error)
                    entries = []
                read(walk, entries)
                frame.pending = [entry.name for entry in reversed(entries) if _is_folder(entry)]
            if frame.pending:
                child = frame.pending.pop()
                try:
                    walk.down(child)
                except OSError as error:
                    on_error(walk.path(child), error)
                continue
            done = walk.up()
            if done is None:
                return
            leave(walk, done)
    except _Moved as moved:
        on_error(str(moved), "the tree changed while it was walked; stopped there")
    except OSError as error:
        on_error(walk.path(), error)
    finally:
        walk.close()


def _top(path: PathLike) -> tuple[str, int, str] | OSError:
    """(the absolute path, its parent open, its name), or why the parent cannot be opened."""
    top = os.path.abspath(os.fspath(path))
    parent_path, name = os.path.split(top)
    try:
        return top, os.open(parent_path or "/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), name
    except OSError as error:
        return error


# -- removal ----------------------------------------------------------------------------------------


def remove_tree(path: PathLike) -> Leftovers:
    """Remove ``path`` and everything under it (or the single entry it names); what could not be removed.

    What does not exist is removed already. Nothing is raised for what the tree holds.
    """
    left = Leftovers(os.path.abspath(os.fspath(path)))
    opened = _top(path)
    if isinstance(opened, OSError):
        if not isinstance(opened, FileNotFoundError):
            left.add(left.path, opened)
        return left
    top, parent, name = opened
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            _visit(_Walk.open(top, parent, name, fix=True), _unlink_entries(left), _rmdir(left), left.add)
        _remove(parent, name, lambda: top, left, folder=stat.S_ISDIR(info.st_mode))
    except FileNotFoundError:
        pass
    except OSError as error:
        left.add(top, error)
    finally:
        os.close(parent)
    return left


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
    def read(walk: _Walk, entries: list[os.DirEntry[str]]) -> None:
        for entry in entries:
            if not _is_folder(entry):
                _remove(walk.fd, entry.name, functools.partial(walk.path, entry.name), left, folder=False)

    return read


def _rmdir(left: Leftovers) -> Leaver:
    return lambda walk, name: _remove(walk.fd, name, functools.partial(walk.path, name), left, folder=True)


# -- measuring and listing ------------------------------------------------------------------------------


def allocated_bytes(path: PathLike) -> int:
    """The disk the tree at ``path`` takes: every entry's allocated blocks (a sparse file counts what it holds).

    0 when it does not exist; what cannot be read counts as nothing.
    """
    opened = _top(path)
    if isinstance(opened, OSError):
        return 0
    top, parent, name = opened
    total = [0]

    def read(walk: _Walk, entries: list[os.DirEntry[str]]) -> None:
        for entry in entries:
            with contextlib.suppress(OSError):
                total[0] += entry.stat(follow_symlinks=False).st_blocks * BLOCK

    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        total[0] += info.st_blocks * BLOCK
        if stat.S_ISDIR(info.st_mode):
            _visit(_Walk.open(top, parent, name), read, lambda walk, name: None, lambda path, error: None)
    except OSError:
        pass
    finally:
        os.close(parent)
    return total[0]


def entries_under(folder: PathLike, *, limit: int = 100) -> list[str]:
    """The paths (relative to ``folder``) of what lies under it, at most ``limit``: each folder's sorted
    entries, its subfolders' after them. Empty when there is nothing, or no such folder.

    Each is text any report can carry: bytes that are not UTF-8 and control characters escaped.
    """
    opened = _top(folder)
    if isinstance(opened, OSError):
        return []
    top, parent, name = opened
    found: list[str] = []

    def read(walk: _Walk, entries: list[os.DirEntry[str]]) -> None:
        found.extend(escaped(walk.relative(entry.name)) for entry in entries[: max(0, limit - len(found))])
        if len(found) >= limit:  # enough: nothing more is entered, the walk only climbs back
            entries.clear()
            for frame in walk.frames:
                frame.pending = []

    try:
        _visit(_Walk.open(top, parent, name), read, lambda walk, name: None, lambda path, error: None)
    except OSError:
        pass
    finally:
        os.close(parent)
    return found
