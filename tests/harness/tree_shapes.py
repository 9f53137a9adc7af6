"""Trees shaped the way a hostile submission shapes its spool, made here by trusted code (making folders is harmless).

A chain of nested folders is made through folder descriptors, as a submission would make it: no path
is ever long. ``fast_folder`` puts the big shapes on a tmpfs where the machine has one: removing
100,000 folders from a disk with journalled metadata takes minutes whatever removes them (``rm -rf``
too), on tmpfs seconds. ``as_user`` runs a function in a forked child of another uid, to see what a
grader that is not root can do.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from dedup_harness.core import removal

SHM = Path("/dev/shm")
NOBODY = 65534
ODD_NAMES = ["new\nline", os.fsdecode(b"not-utf8-\xff\xfe"), "-rf", "--help", " leading space"]


def chain(top: Path, depth: int, name: str = "d") -> None:
    """``depth`` folders, each inside the one before, under ``top``: made one level at a time through descriptors."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


def odd_entries(top: Path, victim: Path) -> None:
    """Odd names, a FIFO, a socket, a hard link, symlinks out of the tree, folders made unreadable and unwritable."""
    for name in ODD_NAMES:
        (top / name).mkdir()
        (top / name / "file").write_text("x", encoding="utf-8")
    os.mkfifo(top / "fifo")
    os.mknod(top / "socket", stat.S_IFSOCK | 0o600)
    os.link(top / ODD_NAMES[0] / "file", top / "hard link")
    (top / "out").symlink_to(victim)
    (top / ODD_NAMES[1] / "out").symlink_to(victim / "keep.txt")
    for name, mode in (("unreadable", 0o000), ("unwritable", 0o500), ("unsearchable", 0o600)):
        inner = top / name / "inner"
        inner.mkdir(parents=True)
        (inner / "file").write_text("x", encoding="utf-8")
        inner.chmod(mode)
        (top / name).chmod(mode)


def tree_size(top: Path) -> int:
    """How many entries ``find`` sees under ``top`` (its own count, not ours)."""
    done = subprocess.run(["find", str(top), "-mindepth", "1"], capture_output=True, check=False)
    return done.stdout.count(b"\n")


@contextlib.contextmanager
def fast_folder(tmp_path: Path) -> Iterator[Path]:
    """A fresh folder on a tmpfs when there is one (else under ``tmp_path``), gone afterwards whatever happened."""
    parent = SHM if SHM.is_dir() and os.access(SHM, os.W_OK | os.X_OK) else tmp_path
    folder = Path(tempfile.mkdtemp(prefix="dedup-harness-shapes-", dir=parent))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        if removal.remove_tree(folder):  # the removal under test failed: leave the machine clean anyway
            subprocess.run(["rm", "-rf", "--one-file-system", str(folder)], check=False)


def give(top: Path, uid: int) -> None:
    """Make every entry under ``top`` (and ``top``) belong to ``uid``, without following a symlink."""
    for path in [top, *_all_under(top)]:
        os.chown(path, uid, uid, follow_symlinks=False)


def _all_under(top: Path) -> list[Path]:
    done = subprocess.run(["find", str(top), "-mindepth", "1", "-print0"], capture_output=True, check=True)
    return [Path(os.fsdecode(raw)) for raw in done.stdout.split(b"\0") if raw]


def as_user(uid: int, action: Callable[[], Any]) -> Any:
    """``action()`` in a forked child running as ``uid`` (needs root); its JSON-ready result."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop to uid, act, report, leave without running any of pytest's cleanup
        status = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            with os.fdopen(write, "w", encoding="utf-8") as out:
                json.dump(action(), out)
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, encoding="utf-8") as answer:
        text = answer.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and text, f"the child as uid {uid} failed"
    return json.loads(text)
