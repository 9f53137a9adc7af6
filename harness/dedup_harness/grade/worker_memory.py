"""The grader's memory probe: how much the isolated worker's resident memory grew during a block.

The check that tells a spooling stage from one holding the documents asks for a stage's peak memory.
In the grader the stage runs in the worker, where the submission could tamper with any measurement
made in its own process; so the grader reads the worker's processes' peak resident memory (VmHWM)
from /proc, outside the worker. Each block gets a fresh worker: a worker that ran earlier checks
keeps the memory they freed, and a stage could fill that slack without its resident size growing.
The peak is then measured from the fresh worker's start-up peak (its imports).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dedup_harness.grade.proxy import SubmissionProxy


def process_tree(root: int) -> list[int]:
    """``root`` and every live process descended from it (through bubblewrap's or unshare's helpers)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            # The command name in parentheses may hold spaces: the fields after its last ")" are plain.
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return sorted(tree)


def status_bytes(pid: int, field: str) -> int | None:
    """A memory field of /proc/PID/status (VmRSS, VmHWM) in bytes, or None once the process is gone."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return None
    value = next((line.split()[1] for line in lines if line.startswith(f"{field}:")), None)
    return int(value) * 1024 if value is not None else None


def total(pids: list[int], field: str) -> int | None:
    values = [status_bytes(pid, field) for pid in pids]
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


class WorkerMemory:
    """A memory probe (``core.memory_probe.MemoryProbe``) over the proxy's worker."""

    def __init__(self, proxy: SubmissionProxy) -> None:
        self.proxy = proxy
        self.peak: int | None = None
        self.pids: list[int] = []
        self.base: int | None = None

    def __enter__(self) -> WorkerMemory:
        self.proxy.restart_worker()
        self.pids = self._pids()
        self.base = total(self.pids, "VmHWM")
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self.base is None or self._pids() != self.pids:
            return  # the worker was replaced during the block: nothing can be said of its memory
        peak = total(self.pids, "VmHWM")
        self.peak = None if peak is None else peak - self.base

    def _pids(self) -> list[int]:
        root = self.proxy.worker_pid()
        return process_tree(root) if root is not None else []
