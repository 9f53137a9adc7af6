"""The ``unshare`` command line for one worker: new namespaces, the harness's folders covered, then exec.

New network (only a downed loopback), pid (its own /proc), mount and ipc namespaces. The rest of the
file system stays in view, read as the worker's user; an empty tmpfs covers each of the harness's
folders and a small one each public temp folder (/tmp, /var/tmp, /dev/shm). A session under one of
them is bound back through a descriptor opened before the cover, and the allowed packages' copy
read-only. A root grader (CAP_SYS_ADMIN) makes the namespaces directly, anyone else through a user
namespace whose capabilities are dropped (bounding set emptied) before the worker starts, so the
worker cannot unmount what covers the harness.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

from dedup_harness.grade.sandbox.launch import Launch

NAMESPACES = (
    "--net",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount",
    "--mount-proc",
    "--ipc",
    "--propagation",
    "private",
)
PUBLIC_TEMP = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))
FREE_FDS = range(3, 10)  # the shell names a descriptor by one digit: one of these not passed holds the session


def _covers(launch: Launch) -> list[str]:
    """Shell lines that put a tmpfs of its own over each public temp folder, keeping in view the session
    and (read-only) the allowed packages' copy."""
    kept = [(launch.session, False), *([(launch.packages, True)] if launch.packages is not None else [])]
    free = iter(fd for fd in FREE_FDS if fd not in launch.passed_fds)
    held = [(path, next(free), read_only) for path, read_only in kept]
    lines: list[str] = []
    for folder in PUBLIC_TEMP:
        if not folder.is_dir() or launch.interpreter_prefix.is_relative_to(folder):
            continue
        under = [(path, fd, read_only) for path, fd, read_only in held if path.is_relative_to(folder)]
        lines += [f"exec {fd}<{shlex.quote(str(path))}" for path, fd, _ in under]
        lines.append(f"mount -t tmpfs -o size={launch.temp_bytes},mode=1777 scratch {shlex.quote(str(folder))}")
        for path, fd, read_only in under:
            lines += _bound(path, f"/proc/self/fd/{fd}", read_only=read_only, made=True)
            lines.append(f"exec {fd}<&-")
    if launch.packages is not None and not any(launch.packages.is_relative_to(f) for f in PUBLIC_TEMP):
        lines += _bound(launch.packages, str(launch.packages), read_only=True, made=False)
    return lines


def _bound(path: Path, source: str, *, read_only: bool, made: bool) -> list[str]:
    """Bind ``source`` on ``path`` (made first where a cover hid it); read-only where asked."""
    target = shlex.quote(str(path))
    lines = [f"mkdir -p {target}"] if made else []
    lines.append(f"mount --no-canonicalize --bind {shlex.quote(source)} {target}")
    return lines + ([f"mount -o remount,bind,ro {target}"] if read_only else [])


def cover_point(path: Path, uid: int | None) -> Path:
    """Where a cover hiding ``path`` from the worker ``uid`` can go: the outermost folder above it that the worker
    cannot enter, else ``path`` itself. A user namespace may not mount beneath a folder its user cannot enter (a
    harness in a folder of mode 0700: ``mktemp -d``, root's home), and a cover on that folder hides ``path`` too."""
    if uid is None:  # the grader's own user: its install is in folders it can enter
        return path
    for folder in [*reversed(path.parents[:-1]), path]:
        mode = folder.stat()
        bit = 0o100 if mode.st_uid == uid else 0o010 if mode.st_gid == uid else 0o001  # its gid is its uid
        if not mode.st_mode & bit:
            return folder
    return path


def unshare_prefix(
    hide: Sequence[Path], *, user_namespace: bool, covers: Sequence[str] = (), uid: int | None = None
) -> list[str]:
    """The command up to the worker's own (which follows it); ``user_namespace`` for an unprivileged caller, who
    runs it as the worker ``uid`` (the grader's own user: None)."""
    unshare = shutil.which("unshare") or "unshare"
    points = sorted({cover_point(path, uid if user_namespace else None) for path in hide})
    points = [p for p in points if not any(p != other and p.is_relative_to(other) for other in points)]
    mounts = [f"mount -t tmpfs -o size=4k,mode=0755 hidden {shlex.quote(str(path))}" for path in points]
    script = " && ".join([*mounts, *covers, 'exec "$@"'])
    if not user_namespace:
        return [unshare, *NAMESPACES, "/bin/sh", "-c", script, "sh"]
    setpriv = shutil.which("setpriv")
    # By its real path: it runs after the covers, and a PATH folder under /tmp is not there any more.
    drop = [os.path.realpath(setpriv) if setpriv else "setpriv", "--inh-caps=-all", "--bounding-set=-all"]
    return [unshare, "--user", "--map-root-user", *NAMESPACES, "/bin/sh", "-c", script, "sh", *drop]


def command(launch: Launch) -> list[str]:
    """The whole command: through a user namespace the drop to the worker's uid comes first, else last."""
    covers = _covers(launch)
    prefix = unshare_prefix(launch.hidden, user_namespace=launch.user_namespace, covers=covers, uid=launch.uid)
    if launch.user_namespace:
        return [*launch.as_worker, *prefix, *launch.worker]
    return [*prefix, *launch.as_worker, *launch.worker]
