"""One submission's session folder: where it goes, who may enter it, what it holds when the worker starts.

``code/`` holds the worker package and a copy of the submission root (read-only to the worker),
``home/`` the worker's scratch and working directory (its own), ``shared/`` the grader's folder where
the checks' temporary folders live (so a ``spool_dir`` a check passes is visible to both sides).
Nobody but the grader and the worker enters the session: 0750 with the worker's group as root, 0700
otherwise; where the caller asks, it is a tmpfs of its own (``own_disk``).
"""

from __future__ import annotations

import compileall
import contextlib
import functools
import os
import shutil
import tempfile
from pathlib import Path

from dedup_harness.core import scratch_dirs
from dedup_harness.grade import worker
from dedup_harness.grade.sandbox import own_disk
from dedup_harness.grade.sandbox.users import sweep_stale_workers

WORKER_PACKAGE = Path(worker.__file__).resolve().parent
SESSION = "session"  # the session folder's kind: dedup-harness-session-<grader pid>.<start>-...
PUBLIC_TEMP = ("/tmp", "/var/tmp", "/dev/shm")


@functools.cache
def compiled_worker_package() -> Path:
    """The worker package with its bytecode, compiled once per grader where the harness is writable.

    The worker runs with -B (it never writes bytecode) and would otherwise compile its modules at
    every start, some 50 ms; an interpreter of another version ignores these files and compiles.
    """
    with contextlib.suppress(OSError):
        compileall.compile_dir(WORKER_PACKAGE, quiet=2)
    return WORKER_PACKAGE


def reachable_by_all(folder: Path) -> bool:
    """Can any user pass through ``folder`` and every folder above it?"""
    try:
        return all(path.stat().st_mode & 0o001 for path in [folder, *folder.parents])
    except OSError:
        return False


def session_parent(uid: int | None) -> Path:
    """Where session folders go: the temp folder, unless a worker of another uid could not reach into it.

    A root grader's TMPDIR may sit in a folder only root can enter (a folder the grader made with
    mkdtemp): its workers' sessions then go to the first of /tmp, /var/tmp and /dev/shm that every
    user can reach. (bubblewrap would not need it; the other tiers see the real file system.)
    """
    chosen = Path(tempfile.gettempdir())
    if uid is None or reachable_by_all(chosen):
        return chosen
    usable = (Path(p) for p in PUBLIC_TEMP if reachable_by_all(Path(p)) and os.access(p, os.W_OK | os.X_OK))
    return next(usable, chosen)


def readable_by_all(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def close_to_others(session: Path, uid: int | None, *, own: bool, disk_bytes: int) -> None:
    """Only the grader and the worker may enter: 0750 with the worker's group as root, else 0700.

    (Not the worker's own folder: it could then rename ``code/`` and start its next worker from code
    of its making, unconfined. Readable by the group, not only searchable: unshare's script holds the
    session open while it covers the folder above it.) ``own``: the session becomes a tmpfs of ``disk_bytes`` in this
    process's own mount namespace.
    """
    group = uid if uid is not None else os.getegid()
    mode = 0o750 if uid is not None else 0o700
    if own:
        own_disk.enter()
        own_disk.mount_space(session, disk_bytes, uid=os.geteuid(), gid=group, mode=mode)
    else:
        os.chown(session, -1, group)
        session.chmod(mode)


def give(path: Path, uid: int | None) -> None:
    """Make ``path`` the worker's own (its uid), so it can write there and nowhere else we own."""
    if uid is not None:
        os.chown(path, uid, uid)
    path.chmod(0o700)


def make_session(root: Path, uid: int | None, *, own: bool, disk_bytes: int) -> Path:
    """A fresh session folder: ``code/`` (a copy of ``root`` and the worker package), ``home/``, ``shared/``."""
    parent = session_parent(uid)
    sweep_stale_sessions(parent)
    session = Path(tempfile.mkdtemp(prefix=scratch_dirs.prefix(SESSION), dir=parent))
    close_to_others(session, uid, own=own, disk_bytes=disk_bytes)
    code = session / "code"
    shutil.copytree(root, code / "root", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copytree(compiled_worker_package(), code / worker.PACKAGE)
    readable_by_all(code)
    (session / "home").mkdir()
    give(session / "home", uid)
    # shared/ stays the grader's (0711): the worker writes only in the spool folders granted to it,
    # and cannot rename or replace the folders the checks inspect.
    (session / "shared").mkdir(mode=0o711)
    (session / "shared").chmod(0o711)
    return session


def sweep_stale_sessions(parent: Path) -> None:
    """Remove what graders killed before they could clean up left: their workers, then their folders."""
    sweep_stale_workers()
    scratch_dirs.sweep(parent)
