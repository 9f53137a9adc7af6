"""What a submission's path holds: regular files and folders only, walked without following anything, read once.

An upload unpacks to whatever its archive carried (``zip -y`` and tar restore links and FIFOs). A link
below the path could lead the search for dedup.py, or its read, into a classmate's folder or the
installed reference; a FIFO would block the read, a device feed it without end. So the whole tree is
walked first (``core.tree_walk``, changing no folder's permissions) and anything but a regular file or
folder refuses the submission, named. The dedup.py is then opened from its folder's descriptor with
O_NOFOLLOW and O_NONBLOCK (a link or FIFO put there since the walk cannot catch the open), checked
with ``fstat`` to be a regular file within the size limit, and read once. A hard link (the same file
elsewhere, perhaps in another submission) is noted for staff.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from dedup_harness.core.removal import printable
from dedup_harness.core.tree_walk import Walk, open_top, visit

DEDUP = "dedup.py"
MAX_BYTES = 1 << 20  # of a dedup.py
MAX_ENTRIES = 20_000  # files and folders below a submission's path that the walk looks at, at most
SHOWN = 5  # refused entries a message names
FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
ONLY = "a submission is regular files and folders only; nothing in it is followed or opened"


class SubmissionError(Exception):
    """The path given cannot be graded at all; the message says why in plain words, ``cause`` in one phrase (what
    follows the path, up to the rule after ";": "a symbolic link", "no such file or folder")."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.cause = message.partition(": ")[2].partition("; ")[0] or message


@dataclass(frozen=True)
class Source:
    """A submission's dedup.py as read: where it is (the path shown, and its name within the submission), its
    bytes, and how many names it has."""

    path: Path
    name: str  # "dedup.py", or "project/dedup.py" in a submission's one project folder
    data: bytes
    links: int  # st_nlink: more than 1 is a hard link

    def notes(self) -> list[str]:
        """What staff should know about the file itself (not the code in it)."""
        if self.links <= 1:
            return []
        return [
            f"{printable(self.name)} has {self.links} names on its disk (a hard link): the same file is elsewhere "
            "too, perhaps in another submission"
        ]


def kind(mode: int) -> str | None:
    """What an entry that is neither a regular file nor a folder is, in words; None for those two."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


@dataclass
class Survey:
    """What the walk of a submission's folder found: the dedup.py candidates, other sources, and what is refused."""

    top: str
    entries: int = 0
    refused: list[str] = field(default_factory=list)  # "relative/path (a FIFO)", the first SHOWN
    refused_count: int = 0
    here: bool = False  # a dedup.py right in the folder
    below: list[str] = field(default_factory=list)  # the subfolders holding one (a zipped project folder)
    others: list[str] = field(default_factory=list)  # other .py files in the folder, for the hint

    def refuse(self, relative: str, what: str) -> None:
        self.refused_count += 1
        if len(self.refused) < SHOWN:
            self.refused.append(f"{printable(relative)} ({what})")

    def read(self, walk: Walk, entries: list[os.DirEntry[str]]) -> None:
        depth = len(walk.frames) - 1
        for entry in entries:
            self.entries += 1
            if self.entries > MAX_ENTRIES:
                raise SubmissionError(
                    f"{self.top}: more than {MAX_ENTRIES:,} files and folders; submit the dedup.py, or the folder "
                    "that holds it without what it does not need"
                )
            try:
                what = kind(entry.stat(follow_symlinks=False).st_mode)
            except OSError as error:
                what = f"cannot be read: {error.strerror or error}"
            if what is not None:
                self.refuse(walk.relative(entry.name), what)
            elif entry.name == DEDUP and entry.is_file(follow_symlinks=False):
                if depth == 0:
                    self.here = True
                elif depth == 1 and not walk.relative().startswith((".", "__MACOSX")):
                    self.below.append(walk.relative())
            elif depth == 0 and entry.name.endswith(".py"):
                self.others.append(entry.name)

    def on_error(self, path: str, error: OSError | str) -> None:
        reason = error if isinstance(error, str) else (error.strerror or str(error))
        self.refuse(os.path.relpath(path, self.top), f"cannot be read: {reason}")

    def check(self) -> None:
        """Nothing refused, or a SubmissionError naming what is."""
        if not self.refused_count:
            return
        more = f", and {self.refused_count - SHOWN} more" if self.refused_count > SHOWN else ""
        raise SubmissionError(f"{self.top}: holds {', '.join(self.refused)}{more}; {ONLY}")

    def dedup(self) -> tuple[str, ...]:
        """The dedup.py to grade, as names from the top: the folder's own, or that of its one subfolder with one."""
        if self.here:
            return (DEDUP,)
        if len(self.below) == 1:
            return (self.below[0], DEDUP)
        if self.below:
            where = ", ".join(f"{printable(name)}/{DEDUP}" for name in sorted(self.below)[:SHOWN])
            raise SubmissionError(f"{self.top}: the folder holds no {DEDUP} but several folders in it do ({where})")
        others = sorted(self.others)[:SHOWN]
        hint = f" (it holds {', '.join(map(printable, others))})" if others else ""
        raise SubmissionError(f"{self.top}: the folder holds no {DEDUP}{hint}")


def find(path: Path) -> tuple[Path, tuple[str, ...]]:
    """The submission's path and the names, from it, of the dedup.py to grade (none when it is the file itself).

    A SubmissionError says why there is none, or what the path holds that no submission may.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise SubmissionError(f"{path}: no such file or folder") from None
    except OSError as error:
        raise SubmissionError(f"{path}: cannot be read ({error.strerror or error})") from None
    if stat.S_ISLNK(info.st_mode):
        raise SubmissionError(f"{path}: a symbolic link; submit the file or folder itself")
    if stat.S_ISREG(info.st_mode):
        if path.suffix != ".py":
            raise SubmissionError(f"{path}: not a Python file (a submission is a dedup.py or a folder holding one)")
        return path, ()
    if not stat.S_ISDIR(info.st_mode):
        raise SubmissionError(f"{path}: {kind(info.st_mode)}; {ONLY}")
    survey = Survey(str(path))
    opened = open_top(path)
    if isinstance(opened, OSError):
        raise SubmissionError(f"{path}: cannot be read ({opened.strerror or opened})")
    top, parent, name = opened
    try:
        visit(Walk.open(top, parent, name, mend=False), survey.read, lambda walk, name: None, survey.on_error)
    except OSError as error:
        raise SubmissionError(f"{path}: cannot be read ({error.strerror or error})") from None
    finally:
        os.close(parent)
    survey.check()
    return path, survey.dedup()


def read(path: Path, names: tuple[str, ...]) -> Source:
    """The dedup.py at ``path`` (then ``names`` below it), opened without following a link or waiting on a
    FIFO, and read once; a SubmissionError when it is not a regular file within MAX_BYTES."""
    shown = path.joinpath(*names)
    with _opened(path, names, shown) as fd:
        info = os.fstat(fd)
        what = kind(info.st_mode)
        if what is not None:
            raise SubmissionError(f"{shown}: {what}; {ONLY}")
        if info.st_size > MAX_BYTES:
            raise SubmissionError(f"{shown}: {info.st_size} bytes, over the {MAX_BYTES >> 10} KiB a dedup.py may have")
        data = bytearray()
        while len(data) <= MAX_BYTES and (chunk := os.read(fd, MAX_BYTES + 1 - len(data))):
            data += chunk
        if len(data) > MAX_BYTES:  # it grew since the fstat
            raise SubmissionError(f"{shown}: over the {MAX_BYTES >> 10} KiB a dedup.py may have")
        return Source(shown, "/".join(names) or path.name, bytes(data), info.st_nlink)


@contextlib.contextmanager
def _opened(path: Path, names: tuple[str, ...], shown: Path) -> Iterator[int]:
    """The file, each folder on the way opened from the one before, none of them through a link."""
    fds: list[int] = []
    try:
        if not names:
            fds.append(os.open(path, READ))
        else:
            fds.append(os.open(path, FOLDER))
            for folder in names[:-1]:
                fds.append(os.open(folder, FOLDER, dir_fd=fds[-1]))
            fds.append(os.open(names[-1], READ, dir_fd=fds[-1]))
        yield fds[-1]
    except OSError as error:
        raise SubmissionError(f"{shown}: cannot be read ({error.strerror or error}); {ONLY}") from None
    finally:
        for fd in fds:
            os.close(fd)
