"""The worker's user: a dedicated uid when the grader is root, and how to drop to it and clear it out.

As root the worker runs as uid ``UID_BASE`` + the grader's pid, so parallel graders never share one
and every process of a submission can be found (and killed) by its uid, even one that left its
process group.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from pathlib import Path

from dedup_harness.core.scratch_dirs import start_ticks

UID_BASE = 1_000_000  # worker uid = UID_BASE + the grader's pid: no two live graders share one


def is_root() -> bool:
    return os.geteuid() == 0


def worker_uid() -> int | None:
    """The uid the worker runs as: a dedicated one when the grader is root, else the grader's own."""
    return UID_BASE + os.getpid() if is_root() else None


def drop_privileges(uid: int | None) -> list[str]:
    if uid is None:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise RuntimeError("the grader runs as root but setpriv (util-linux) is missing: refusing to run submissions")
    return [
        setpriv,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
    ]


def real_uids() -> dict[int, int]:
    """The real uid of every live process, by pid, from their status files; zombies are not alive.

    (Not from the owner of /proc/<pid>: a process that makes itself non-dumpable hands that to root.
    A zombie can do nothing, and one whose parent died waits for the machine's init to reap it: the
    unshare tier's worker, its namespace's first process, becomes one when unshare is killed.)
    """
    found = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            lines = status.read_text().splitlines()
        except OSError:
            continue  # it ended while we looked
        fields = {line.split(":", 1)[0]: line.split()[1:] for line in lines if ":" in line}
        uids, state = fields.get("Uid", []), fields.get("State", ["?"])
        if uids and state[0] != "Z":
            found[int(status.parent.name)] = int(uids[0])
    return found


def processes_of(uid: int) -> list[int]:
    """Live processes whose real uid is ``uid``."""
    return [pid for pid, owner in real_uids().items() if owner == uid]


def tasks_of(uid: int) -> int:
    """Threads of every process of ``uid``: what RLIMIT_NPROC counts against a new process of that user."""
    total = 0
    for pid in processes_of(uid):
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines()
            total += int(next((line.split()[1] for line in status if line.startswith("Threads:")), "1"))
    return total


def sweep_stale_workers() -> None:
    """As root: kill what the workers of graders that are gone left running (a worker's uid names its grader).

    Only where the worker outlives its grader: as root, with no namespace to take it along (bubblewrap
    and unshare end with the grader).
    """
    if not is_root():
        return
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text()) if Path("/proc/sys/kernel/pid_max").exists() else 0
    for uid in sorted({owner for owner in real_uids().values() if UID_BASE < owner <= UID_BASE + pid_max}):
        if start_ticks(uid - UID_BASE) is None:
            kill_uid(uid)


def kill_uid(uid: int) -> None:
    """Kill every process of ``uid`` from inside that uid (kill -1), until none is left.

    A fork bomb forks while it dies, hence the loop.
    """
    kill = shutil.which("kill") or "kill"
    deadline = time.monotonic() + 10
    while processes_of(uid) and time.monotonic() < deadline:
        subprocess.run([*drop_privileges(uid), kill, "-KILL", "-1"], cwd="/", check=False, capture_output=True)
        time.sleep(0.05)  # the kernel takes a moment to reap what it killed
