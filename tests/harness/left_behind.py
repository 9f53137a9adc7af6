"""What a grade left where any process may write, seen from outside the harness (its own lists are not used).

``test_leftovers`` and ``benchmarks/attack_table.py`` look with these: everything named with a token at any
depth of the world-writable folders and in /dev/mqueue, and the System V IPC objects (/proc/sysvipc, what
``ipcs`` reads), each a row of its columns.
"""

from __future__ import annotations

import os
from pathlib import Path

WORLD_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
IPC_KINDS = ("shm", "msg", "sem")


def named_with(token: str) -> list[str]:
    """Everything named with ``token`` in the world-writable folders (at any depth) and in /dev/mqueue."""
    found = []
    for top in (*WORLD_WRITABLE, "/dev/mqueue"):
        for folder, folders, files in os.walk(top):
            found += [os.path.join(folder, name) for name in folders + files if token in name]
    return found


def ipc_objects() -> list[tuple[str, dict[str, str]]]:
    """Every System V IPC object: its kind (shm, msg, sem) and its row, by /proc/sysvipc's column names."""
    found = []
    for kind in IPC_KINDS:
        lines = Path(f"/proc/sysvipc/{kind}").read_text(encoding="ascii").splitlines()
        names = lines[0].split() if lines else []
        found += [(kind, dict(zip(names, line.split(), strict=False))) for line in lines[1:]]
    return found
