"""The bubblewrap command line for one worker: what it sees, and the namespaces it gets.

Inside exist only /usr (and the merged-/usr links), the interpreter's installation, a fresh /proc and
/dev, a small tmpfs /tmp, the session folder (a tmpfs of its own where the grader made one,
``own_disk``; else the home is covered by a small tmpfs, so a disk filler meets "no space left") and,
read-only, the allowed packages' copy. The harness's folders are covered by an empty tmpfs wherever a
bound tree holds them. The folders above a bound path are made 0755: bubblewrap would make them 0700,
and a worker under /var/tmp could not reach its own session.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from dedup_harness.grade.sandbox.launch import Launch

SYSTEM_TOPS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
PROVIDED = (Path("/"), Path("/usr"), Path("/tmp"), Path("/proc"), Path("/dev"))


def system_binds() -> list[str]:
    """The read-only system tree the worker needs: /usr and the merged-/usr links."""
    args = ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev"]
    for name in SYSTEM_TOPS:
        top = Path("/") / name
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    return args


def _reachable_parents(targets: Iterable[Path]) -> list[str]:
    """``--dir`` with mode 0755 for every folder above a bound path that bubblewrap would create."""
    args: list[str] = []
    made: set[Path] = set()
    for target in targets:
        for parent in reversed(target.parents):
            if parent in made or parent in PROVIDED or parent.is_relative_to("/usr"):
                continue
            made.add(parent)
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def command(launch: Launch) -> list[str]:
    """The whole command: bubblewrap's arguments, ``--``, the drop to the worker's user, the worker."""
    bwrap = shutil.which("bwrap") or "bwrap"
    return [*bwrap_args(bwrap, launch), "--", *launch.as_worker, *launch.worker]


def bwrap_args(bwrap: str, launch: Launch) -> list[str]:
    """Everything before ``--`` and the worker's own command."""
    visible = [Path("/usr")]
    size = str(launch.temp_bytes)
    args = [bwrap, *system_binds(), "--perms", "1777", "--size", size, "--tmpfs", "/tmp"]
    prefix = launch.interpreter_prefix
    extra = [prefix] if not prefix.is_relative_to("/usr") else []
    extra += [launch.packages] if launch.packages is not None else []
    args += _reachable_parents([launch.session, *extra])
    args += ["--bind", str(launch.session), str(launch.session)]
    for tree in extra:
        args += ["--ro-bind", str(tree), str(tree)]
        visible.append(tree)
    for private in launch.hidden:
        if any(private.is_relative_to(tree) for tree in visible):
            args += ["--tmpfs", str(private)]
    if not launch.own_disk:
        # bwrap makes the home tmpfs as root: world-writable (sticky) is how the worker's uid may write there.
        args += ["--perms", "1777", "--size", size, "--tmpfs", str(launch.home)]
    args += ["--chdir", str(launch.home), "--clearenv"]
    for key, value in launch.env.items():
        args += ["--setenv", key, value]
    args += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    return [*args, "--die-with-parent", "--new-session"]
