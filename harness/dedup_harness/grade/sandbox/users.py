"""The worker's user: a uid of its own for each worker when the grader is root; dropping to it; clearing it out.

As root each sandbox's worker runs as ``UID_BASE + SLOTS * <the grader's pid> + <slot>``: the slot is
the sandbox's among the sandboxes this process holds at once, so no two live workers share a uid (nor
do two submissions graded side by side, each by its own suite process), every process of a
submission can be found (and killed) by its uid, even one that left its process group, and file
modes keep each worker out of every other's session. (The range starts far above the 1,000,000 +
pid of earlier releases, so a grader of either kind never takes the other's workers for its own.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

from dedup_harness.core.procfs import pids, start_ticks, status

UID_BASE = 200_000_000
SLOTS = 16  # sandboxes one grader process may hold at once, each with a uid of its own
_slots_taken: set[int] = set()
_slots_lock = threading.Lock()


def is_root() -> bool:
    return os.geteuid() == 0


def worker_uid(slot: int = 0) -> int | None:
    """The uid of this process's worker in ``slot`` when the grader is root, else None (the grader's own).

    Slot 0 also stands for every worker when the tiers are detected and the interpreter is tried:
    any of these uids can do what the others can.
    """
    return UID_BASE + SLOTS * os.getpid() + slot if is_root() else None


def claim_slot() -> int:
    """A slot no live sandbox of this process holds (given back by ``release_slot``)."""
    with _slots_lock:
        free = next((slot for slot in range(SLOTS) if slot not in _slots_taken), None)
        if free is None:
            raise RuntimeError(f"more than {SLOTS} sandboxes at once in one grader process")
        _slots_taken.add(free)
        return free


def release_slot(slot: int) -> None:
    with _slots_lock:
        _slots_taken.discard(slot)


def grader_of(uid: int) -> int | None:
    """The pid of the grader whose worker ``uid`` is (None: not a worker's uid)."""
    return (uid - UID_BASE) // SLOTS if uid >= UID_BASE else None


def drop_privileges(uid: int | None) -> list[str]:
    if uid is None:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise RuntimeError("the grader runs as root but setpriv (util-linux) is missing: refusing to run submissions")
    return [
        os.path.realpath(setpriv),  # by its real path: a PATH folder under /tmp is covered in unshare's namespace
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
    for pid in pids():
        fields = status(pid)
        uids, state = fields.get("Uid", []), fields.get("State", ["?"])
        if uids and state[0] != "Z":
            found[pid] = int(uids[0])
    return found


def processes_of(uid: int) -> list[int]:
    """Live processes whose real uid is ``uid``."""
    return [pid for pid, owner in real_uids().items() if owner == uid]


def tasks_of(uid: int) -> int:
    """Threads of every process of ``uid``: what RLIMIT_NPROC counts against a new process of that user."""
    return sum(int(status(pid).get("Threads", ["1"])[0]) for pid in processes_of(uid))


def sweep_stale_workers() -> None:
    """As root: kill what the workers of graders that are gone left running (a worker's uid names its grader).

    Only where the worker outlives its grader: as root, with no namespace to take it along (bubblewrap
    and unshare end with the grader).
    """
    if not is_root():
        return
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text()) if Path("/proc/sys/kernel/pid_max").exists() else 0
    for uid in sorted({owner for owner in real_uids().values() if UID_BASE <= owner < UID_BASE + SLOTS * pid_max}):
        grader = grader_of(uid)
        if grader is not None and start_ticks(grader) is None:
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
