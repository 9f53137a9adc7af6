"""The grader's memory gauge: how much memory the isolated worker used during a block, read from outside it.

The memory check asks for a stage's peak memory; in the worker the submission could tamper with any
measurement made in its own process, so the grader reads the worker's processes from /proc, two ways:

- the growth of the peak resident size (VmHWM), reset to the present size right before the block, so
  what the import touched and freed (a 200 MB spike, say) never counts;
- the memory the block reused: the anonymous memory it touched (referenced bits cleared before it)
  less what became resident meanwhile, read at the judge's mark (a stage holding the documents holds
  them all) and at the end. A resident size does not grow when the allocator hands out memory freed
  but kept: a submission that fills 60 MB at import and frees every other block has 30 MB of slack no
  peak shows. All it touched would be noisy (a correct stage's short-lived allocations wander over its
  heap, and by the end over the slack too): the mark is where held documents show. Making more memory
  resident to hide them shows in the first figure.

Each block gets a fresh worker: with one worker for both blocks of the check, the second filled the
first's slack (a stage holding every document grew 0.9 MB instead of 1.6). Memory no process shows
(shared memory, a memory file, a pipe's buffer) is refused by the worker's seccomp filter. A figure
that cannot be reset or read (the worker died or made itself undumpable, which its filter refuses) is
no measurement: ``figures`` stays empty and the check fails. It is all read as the worker
(``grade.identity``): the kernel shows a memory map only to its uid or to CAP_SYS_PTRACE, which a
container's root lacks.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, NamedTuple

from dedup_harness.core.procfs import anonymous_touched, descendants, memory_bytes, status

if TYPE_CHECKING:
    from dedup_harness.grade.client.proxy import SubmissionProxy

RESET_PEAK = b"5"  # written to /proc/PID/clear_refs: the peak resident size (VmHWM) becomes the present one
CLEAR_REFERENCED = b"1"  # written there too: every page of the process reads as not referenced


class Reading(NamedTuple):
    peak: int  # the peak resident size (VmHWM) of every process, summed
    anonymous: int  # their resident anonymous memory now (RssAnon)
    touched: int  # the anonymous memory they touched since it was cleared

    def touched_already_resident(self, base: Reading) -> int:
        """What the block touched of the memory resident when it began: all it touched, less what became resident.

        All since the reset, not since ``base`` was read: a page the worker touched in between (a fresh
        worker may still be busy) is counted once either way, by whichever reading comes after.
        """
        return self.touched - max(0, self.anonymous - base.anonymous)


def total(values: list[int | None]) -> int | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def read(pids: list[int]) -> Reading | None:
    """The processes' figures now; None if any is gone or unreadable."""
    peak = total([memory_bytes(pid, "VmHWM") for pid in pids])
    anonymous = total([memory_bytes(pid, "RssAnon") for pid in pids])
    touched = total([anonymous_touched(pid) for pid in pids])
    if peak is None or anonymous is None or touched is None or not pids:
        return None
    return Reading(peak, anonymous, touched)


def reset(pids: list[int]) -> Reading | None:
    """Each process's referenced bits cleared and its peak made its present size; the figures then (None: failed)."""
    try:
        for pid in pids:
            with open(f"/proc/{pid}/clear_refs", "wb", buffering=0) as refs:
                refs.write(CLEAR_REFERENCED)
                refs.write(RESET_PEAK)
    except OSError:
        return None
    return read(pids)


class WorkerMemory:
    """One block's measurement (``core.memory_gauge.MemoryGauge``): a fresh worker, reset right before the block,
    read at the judge's mark and right after it."""

    def __init__(self, proxy: SubmissionProxy) -> None:
        self.proxy = proxy
        self.figures: dict[str, int] = {}
        self.pids: list[int] = []
        self.base: Reading | None = None
        self.marked: list[Reading] = []  # at each mark

    def __enter__(self) -> WorkerMemory:
        self.proxy.restart_worker()
        self.pids = self._pids()
        self.base = self.proxy.sandbox.as_worker(lambda: reset(self.pids))
        return self

    def mark(self) -> None:
        """Now a stage that holds the documents holds them all (its input is read, its output not yet)."""
        now = self._read()
        if now is not None:
            self.marked.append(now)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        now = self._read()
        if self.base is None or now is None:
            return  # unreadable, or the worker was replaced during the block: nothing can be said of its memory
        base = self.base
        self.figures = {"resident at the peak": now.peak - base.peak, "reused": now.touched_already_resident(base)}
        if len(self.marked) == 1:
            self.figures["reused at the mark"] = self.marked[0].touched_already_resident(base)

    def _read(self) -> Reading | None:
        if self.base is None or self._pids() != self.pids:
            return None
        return self.proxy.sandbox.as_worker(lambda: read(self.pids))

    def _pids(self) -> list[int]:
        """The worker's processes: those of its uid (where it has one) under its outermost (bubblewrap's or
        unshare's helpers are the grader's, and hold nothing of the stage's)."""
        root, uid = self.proxy.worker_pid(), self.proxy.sandbox.uid
        found = descendants(root) if root is not None else []
        return found if uid is None else [pid for pid in found if status(pid).get("Uid", [""])[0] == str(uid)]
