"""The ``unshare`` command line for one worker: new namespaces, the harness's folders covered, then exec.

New network (only a downed loopback), pid (with its own /proc), mount and ipc namespaces. The rest of
the file system stays in view, read as the worker's own user; an empty tmpfs covers each of the
harness's folders. A root grader (CAP_SYS_ADMIN) makes them directly; anyone else (a non-root grader,
a container without CAP_SYS_ADMIN, after dropping to the worker's uid) through a user namespace in
which it is root, whose capabilities are dropped (bounding set emptied) before the worker starts, so
the worker cannot unmount what covers the harness.
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

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


def unshare_prefix(hide: Sequence[Path], *, user_namespace: bool) -> list[str]:
    """The command up to the worker's own (which follows it); ``user_namespace`` for an unprivileged caller."""
    unshare = shutil.which("unshare") or "unshare"
    mounts = [f"mount -t tmpfs -o size=4k,mode=0755 hidden {shlex.quote(str(path))}" for path in hide]
    script = " && ".join([*mounts, 'exec "$@"'])
    if not user_namespace:
        return [unshare, *NAMESPACES, "/bin/sh", "-c", script, "sh"]
    drop = [shutil.which("setpriv") or "setpriv", "--inh-caps=-all", "--bounding-set=-all"]
    return [unshare, "--user", "--map-root-user", *NAMESPACES, "/bin/sh", "-c", script, "sh", *drop]
