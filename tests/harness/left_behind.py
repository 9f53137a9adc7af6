"""What a grade left where any process may write, seen from outside the harness (its own lists are not used).

``test_batch_attacks`` and ``benchmarks/attack_table.py`` look with these: everything named with a token at any
depth of the world-writable folders and in /dev/mqueue, and the System V IPC objects (/proc/sysvipc, what
``ipcs`` reads), each a row of its columns.
"""

from __future__ import annotations

import os
from pathlib import Path

WORLD_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
IPC_KINDS = ("shm", "msg", "sem")


def named_with(token: str) -> list[str]:
    """Everything named with ``token`` in the world-writable folders (at any depth) and in /dev/mqueue.

    A walk of its own, not ``os.walk``: that one recurses, and another run's tree 100,000 folders deep (the removal
    tests make one) would end it in a RecursionError."""
    found, folders = [], [*WORLD_WRITABLE, "/dev/mqueue"]
    while folders:
        try:
            entries = list(os.scandir(folders.pop()))
        except OSError:
            continue  # gone, or not ours to read
        found += [entry.path for entry in entries if token in entry.name]
        folders += [entry.path for entry in entries if entry.is_dir(follow_symlinks=False)]
    return found


def ipc_objects() -> list[tuple[str, dict[str, str]]]:
    """Every System V IPC object: its kind (shm, msg, sem) and its row, by /proc/sysvipc's column names."""
    found = []
    for kind in IPC_KINDS:
        lines = Path(f"/proc/sysvipc/{kind}").read_text(encoding="ascii").splitlines()
        names = lines[0].split() if lines else []
        found += [(kind, dict(zip(names, line.split(), strict=False))) for line in lines[1:]]
    return found
