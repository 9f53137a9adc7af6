"""A descent through a folder tree with one folder open at a time: what removing, measuring and listing share.

Each folder is entered by name from its parent's descriptor with O_NOFOLLOW|O_DIRECTORY, so no
symlink is followed out of the tree; the way back up is "..", checked against the device and inode
recorded on the way down, so a tree moved meanwhile stops the walk (``Moved``); a mount point
(another device, or one /proc/self/mountinfo lists: a bind mount shares the device) is not entered. A
folder its owner may not open gets its owner's rwx back through an O_PATH descriptor, so the chmod
cannot land on a link's target (macOS and the BSDs change the name without following a link; with
/proc hidden the folder is checked to be no link first), unless the walk must not ``mend`` (a
submission's files are only read); one that ``fix``es does so to every folder it enters. The depth
costs one name per level, never recursion or a long path. No Linux needed: ``check`` removes its
scratch with it on macOS too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
O_PATH = getattr(os, "O_PATH", 0)  # Linux only
HANDLE = O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
OWNER_ALL = stat.S_IRWXU

PathLike = str | os.PathLike[str]


class Moved(Exception):
    """The tree changed under the walk: ".." is no longer the folder it came down from."""


@dataclass
class Frame:
    name: str  # in its parent
    ident: tuple[int, int]  # (st_dev, st_ino)
    pending: list[str] | None = None  # subfolders still to visit (the last first); None until it is read


def _owner_rights(fd: int, mode: int) -> None:
    """Give the folder open on ``fd`` back its owner's rwx, if the submission took them away."""
    if mode & OWNER_ALL != OWNER_ALL:
        with contextlib.suppress(OSError):
            os.fchmod(fd, stat.S_IMODE(mode) | OWNER_ALL)


def _open_folder(parent: int, name: str, *, mend: bool = True) -> int:
    """Folder ``name`` of ``parent``, opened without following a symlink; if its owner may not read it, fixed first
    (unless not to ``mend``: then the PermissionError stands)."""
    try:
        return os.open(name, FOLDER, dir_fd=parent)
    except PermissionError:
        if not mend:
            raise
        _give_owner_rights(parent, name)
        return os.open(name, FOLDER, dir_fd=parent)


def _give_owner_rights(parent: int, name: str) -> None:
    """Folder ``name`` of ``parent`` gets its owner's rwx back, never a symlink's target."""
    if O_PATH and os.path.isdir("/proc/self/fd"):
        handle = os.open(name, HANDLE, dir_fd=parent)  # needs no permission on the folder itself
        try:
            # The descriptor's /proc link is the folder itself: chmod cannot be led to a symlink's target.
            os.chmod(f"/proc/self/fd/{handle}", stat.S_IMODE(os.fstat(handle).st_mode) | OWNER_ALL)
        finally:
            os.close(handle)
        return
    info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", name)
    mode = stat.S_IMODE(info.st_mode) | OWNER_ALL
    if os.chmod in os.supports_follow_symlinks:  # macOS, the BSDs: the name itself, never what a link names
        os.chmod(name, mode, dir_fd=parent, follow_symlinks=False)
    else:  # Linux with /proc hidden: the folder just seen to be no link (only a race could swap it)
        os.chmod(name, mode, dir_fd=parent)


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


class Walk:
    """A descent through a tree with one folder open: down by name, up by a checked ".."."""

    def __init__(self, top: str, fd: int, *, fix: bool, mend: bool = True) -> None:
        info = os.fstat(fd)
        self.fix = fix  # give every folder entered its owner's rwx (to remove what it holds)
        self.mend = mend  # give a folder its owner may not open its owner's rwx, to enter it (else: not entered)
        if fix:
            _owner_rights(fd, info.st_mode)
        self.top = top
        self.fd = fd
        self.device = info.st_dev
        self.mounts = _mount_roots(top)
        self.frames = [Frame("", (info.st_dev, info.st_ino))]

    @classmethod
    def open(cls, top: str, parent: int, name: str, *, fix: bool = False, mend: bool = True) -> Walk:
        return cls(top, _open_folder(parent, name, mend=mend), fix=fix, mend=mend)

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def relative(self, name: str = "", *, most: int | None = None) -> str:
        """The current folder's path (or that of ``name`` in it), relative to the top; with ``most``, its first
        ``most`` characters at most (what it costs stays bounded however deep the folder lies).

        Built when asked, never kept per level: a path kept for every folder of a chain costs the square of
        its depth (a chain of 100,000 folders, 10 GB).
        """
        names, length = [], 0
        for frame in self.frames[1:]:
            names.append(frame.name)
            length += len(frame.name) + 1
            if most is not None and length > most:
                return "/".join(names)[:most]
        return "/".join([*names, name]) if name and names else "/".join(names) or name

    def path(self, name: str = "") -> str:
        relative = self.relative(name)
        return f"{self.top}/{relative}" if relative else self.top

    def down(self, name: str) -> None:
        """Enter subfolder ``name``; OSError when it cannot be opened or lies on another device."""
        child = _open_folder(self.fd, name, mend=self.mend)
        info = os.fstat(child)
        if info.st_dev != self.device or (info.st_dev, info.st_ino) in self.mounts:
            os.close(child)
            raise OSError(errno.EXDEV, "another file system is mounted there; not entered")
        if self.fix:
            _owner_rights(child, info.st_mode)
        os.close(self.fd)
        self.fd = child
        self.frames.append(Frame(name, (info.st_dev, info.st_ino)))

    def up(self) -> str | None:
        """Back to the parent folder; the name of the folder just left, or None at the top."""
        if len(self.frames) == 1:
            return None
        left = self.frames.pop()
        parent = os.open("..", FOLDER, dir_fd=self.fd)
        info = os.fstat(parent)
        if (info.st_dev, info.st_ino) != self.frame.ident:
            os.close(parent)
            raise Moved(self.path(left.name))
        os.close(self.fd)
        self.fd = parent
        return left.name

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


Reader = Callable[[Walk, list[os.DirEntry[str]]], None]  # told each folder's entries once
Leaver = Callable[[Walk, str], None]  # told each subfolder once everything under it was visited
OnError = Callable[[str, "OSError | str"], None]


def is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def visit(walk: Walk, read: Reader, leave: Leaver, on_error: OnError) -> None:
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
                frame.pending = [entry.name for entry in reversed(entries) if is_folder(entry)]
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
    except Moved as moved:
        on_error(str(moved), "the tree changed while it was walked; stopped there")
    except OSError as error:
        on_error(walk.path(), error)
    finally:
        walk.close()


def open_top(path: PathLike) -> tuple[str, int, str] | OSError:
    """(the absolute path, its parent open, its name), or why the parent cannot be opened."""
    top = os.path.abspath(os.fspath(path))
    parent_path, name = os.path.split(top)
    try:
        return top, os.open(parent_path or "/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), name
    except OSError as error:
        return error
