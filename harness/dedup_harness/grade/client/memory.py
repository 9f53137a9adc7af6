"""The grader's memory gauge: how much the isolated worker's resident memory grew during a block.

The check that tells a spooling stage from one holding the documents asks for a stage's peak memory.
In the grader the stage runs in the worker, where the submission could tamper with any measurement
made in its own process; so the grader reads the worker's processes' peak resident memory (VmHWM)
from /proc, outside the worker. Right before each block it resets that peak to the present resident
size (writing 5 to /proc/PID/clear_refs), so what the import or anything earlier touched and freed
(a 200 MB spike at import, say) never counts: the peak is what the block itself added.

Each block still gets a fresh worker. A worker keeps much of the memory a block freed, and the next
block can fill that slack without its resident size growing: with one worker for both of the
memory check's blocks, a stage that holds every document raised its peak by 0.9 MB instead of 1.6
(bubblewrap) and by less than the check allows (landlock), the first block's documents leaving room
for the second's. A fresh worker costs one start; the reset makes it honest. The check compares the
growth of two blocks (two corpus sizes), so whatever a stage needs whatever the corpus cancels out.
A peak that cannot be reset or read (the worker made itself undumpable, or died) is no measurement:
``peak`` stays None, and the check fails.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

from dedup_harness.core.procfs import descendants, memory_bytes

if TYPE_CHECKING:
    from dedup_harness.grade.client.proxy import SubmissionProxy


def total(pids: list[int], field: str) -> int | None:
    values = [memory_bytes(pid, field) for pid in pids]
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


RESET_PEAK = b"5"  # written to /proc/PID/clear_refs: the peak resident size (VmHWM) becomes the present one


def reset_peaks(pids: list[int]) -> bool:
    """Reset each process's peak resident size to its present one; False if any could not be reset."""
    try:
        for pid in pids:
            with open(f"/proc/{pid}/clear_refs", "wb", buffering=0) as refs:
                refs.write(RESET_PEAK)
    except OSError:
        return False
    return bool(pids)


class WorkerMemory:
    """One block's measurement (``core.memory_gauge.MemoryGauge``): a fresh worker, its peak reset right
    before the block, read right after it."""

    def __init__(self, proxy: SubmissionProxy) -> None:
        self.proxy = proxy
        self.peak: int | None = None
        self.pids: list[int] = []
        self.base: int | None = None

    def __enter__(self) -> WorkerMemory:
        self.proxy.restart_worker()
        self.pids = self._pids()
        if reset_peaks(self.pids):
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
        return descendants(root) if root is not None else []
