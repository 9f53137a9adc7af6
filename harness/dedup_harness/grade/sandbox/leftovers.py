"""What a worker's uid left outside its session, found by owner and removed once it is stopped.

In every tier but ``none`` a worker can leave nothing outside its session: seccomp refuses System V
IPC everywhere, and the world-writable folders are out of view, refused by Landlock or by the grader's
decisions. Where that does not hold (``none``, a seccomp tier whose kernel does not let the grader
decide file calls) a root grader's worker still has a uid of its own, so what it left is what that uid
owns in the world-writable folders (and those found below them) and in /proc/sysvipc.
``remove_everything_of`` removes them all, and is safe to call in any tier.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from dedup_harness.core.removal import remove_tree
from dedup_harness.grade.sandbox.folder import PUBLIC_TEMP

WORLD_WRITABLE = (*PUBLIC_TEMP, "/run/lock")  # /run/lock: world-writable too, though no session goes there
LOOKED_INTO = 20_000  # folders a search for nested world-writable ones opens, at most (a /tmp can be huge)
IPC = {"shm": "shmctl", "msg": "msgctl", "sem": "semctl"}  # /proc/sysvipc/<kind>, and the call that removes one
IPC_RMID = 0


def world_writable_folders(tops: Iterable[str] = WORLD_WRITABLE) -> Iterator[str]:
    """Each of ``tops`` that exists, and every world-writable folder below one, top first (a breadth-first
    search that enters no link and no other file system, at most LOOKED_INTO folders)."""
    queue = [(top, os.stat(top).st_dev) for top in tops if os.path.isdir(top) and not os.path.islink(top)]
    opened = 0
    while queue and opened < LOOKED_INTO:
        folder, device = queue.pop(0)
        opened += 1
        with contextlib.suppress(OSError):
            if os.lstat(folder).st_mode & stat.S_IWOTH:
                yield folder
            with os.scandir(folder) as entries:
                for entry in entries:
                    with contextlib.suppress(OSError):
                        if entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_dev == device:
                            queue.append((entry.path, device))


def remove_files_of(uid: int, folders: Iterable[str]) -> None:
    """Remove every entry of ``folders`` (not below them) that belongs to ``uid``, whatever it holds."""
    for folder in folders:
        with contextlib.suppress(OSError):
            for name in os.listdir(folder):
                path = os.path.join(folder, name)
                with contextlib.suppress(OSError):
                    if os.lstat(path).st_uid == uid:
                        remove_tree(path)


def ipc_of(uid: int) -> list[tuple[str, int]]:
    """The System V IPC objects (kind, id) that ``uid`` owns or made."""
    found = []
    for kind in IPC:
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text(encoding="ascii").splitlines()
        except OSError:
            continue
        if not lines:
            continue
        names = lines[0].split()
        for line in lines[1:]:
            row = dict(zip(names, line.split(), strict=False))
            if str(uid) in (row.get("uid"), row.get("cuid")):
                found.append((kind, int(row[{"shm": "shmid", "msg": "msqid", "sem": "semid"}[kind]])))
    return found


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def remove_ipc_of(uid: int) -> None:
    """Remove every System V IPC object ``uid`` owns or made (root may remove any)."""
    for kind, ident in ipc_of(uid):
        call = getattr(_libc(), IPC[kind])
        if kind == "sem":
            call(ctypes.c_int(ident), ctypes.c_int(0), ctypes.c_int(IPC_RMID))
        else:
            call(ctypes.c_int(ident), ctypes.c_int(IPC_RMID), ctypes.c_void_p(None))


def remove_everything_of(uid: int) -> None:
    """What ``uid`` left in the world-writable folders and in System V IPC: removed."""
    remove_files_of(uid, world_writable_folders())
    remove_ipc_of(uid)
