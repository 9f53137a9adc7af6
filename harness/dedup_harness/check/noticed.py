"""What grade would refuse, noticed while a student's code runs in ``check``'s own process: an audit hook that
records and refuses nothing.

The grader's worker refuses four things correct laptop code sometimes does: child processes,
sockets, files outside the stage's folders, and signals to other processes. ``check`` runs the code
in its own process, where all four work, so without this the student would see full marks that
grade gives nothing for. The rules are the worker's own (``grade/worker/audit.py``, each met rule
with its category as data, ``grade/worker/categories.py``); the hook here only asks them, and only
of what the student's code does: an event counts when a frame of one of their files (their
``dedup.py``, and their own ``doc``, ``hashing`` or ``bloom``) is on the stack, so the suite's own
files, pytest and Hypothesis are never the student's doing.

Audit hooks (PEP 578) are part of CPython on every platform: nothing here needs /proc, a namespace
or a Linux system call. A hook cannot be removed once added, so it is added once per process and
switched off when its recording ends. One gap is closed by hand: multiprocessing's spawn and
forkserver start methods (spawn is macOS's default) start a process through
``multiprocessing.util.spawnv_passfds``, which raises no audit event of CPython's; it is wrapped to
raise the one ``os.posix_spawn`` raises before it calls through (``watch_spawns``), so a pool is
noticed in every check on a Mac as ``os.fork`` notices it on Linux.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from dedup_harness.grade.worker import audit, categories

IMPORT = "(import)"  # what the module did while it was imported: grade then grades nothing
# The events whose rules grade's worker has: anything else is not looked at (the hook is on every event).
EVENTS = frozenset(
    {
        *audit.PROCESS_EVENTS,
        *audit.LOOKUPS,
        *audit.CONNECTIONS,
        *audit.CHANGES,
        "socket.__new__",
        "socket.bind",
        "os.kill",
        "os.killpg",
        "os.mkdir",
        "open",
        "import",
    }
)
SYSTEM_READ_ONLY = ("/usr/share/zoneinfo", "/dev/urandom", "/etc/ld.so.cache")


@dataclass(frozen=True)
class Noticed:
    """One thing grade would refuse: in which check (or ``IMPORT``), its rule's category, the words, and where in the
    student's code it happened."""

    check: str
    category: str
    note: str
    site: str  # "dedup.py line 40, in _spool"


class Recorder:
    """Asks grade's rules about every event the student's files cause, and keeps what grade would refuse."""

    def __init__(self, student_files: Sequence[Path], writable: Sequence[str], readable: Sequence[str]) -> None:
        self.files = {str(path) for path in student_files} | {os.path.realpath(path) for path in student_files}
        self.rules = audit.AuditHook(lambda note, category: None, list(writable), list(readable))
        self.noticed: list[Noticed] = []
        self.check: str | None = None  # the check running (None: between checks, where nothing is recorded)
        self.on = False
        self._inside = threading.local()

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.on or event not in EVENTS or getattr(self._inside, "busy", False):
            return
        if event == "import" and args[0] != audit.PROCESS_LOCKS:
            return
        self._inside.busy = True  # what this hook calls raises events of its own
        try:
            self._record(event, args)
        except Exception:  # a hook must never break the code it watches
            pass
        finally:
            self._inside.busy = False

    def _record(self, event: str, args: tuple[Any, ...]) -> None:
        frame = self._student_frame(sys._getframe(2))
        if frame is None:
            return
        met = self.rules.judge(event, args)
        if met is None or met.category == categories.NONE:
            return
        where = IMPORT if frame.f_code.co_name == "<module>" else self.check
        if where is None:
            return  # the shrinker's reruns: the check it shrinks for noticed it already
        if any((n.check, n.category) == (where, met.category) for n in self.noticed):
            return  # the first of each kind in a check is what grade's refusal stops at; the rest never happen there
        site = f"{Path(frame.f_code.co_filename).name} line {frame.f_lineno}, in {frame.f_code.co_qualname}"
        self.noticed.append(Noticed(where, met.category, met.text, site))

    def _student_frame(self, frame: FrameType | None) -> FrameType | None:
        """The innermost frame of the student's files on the stack from ``frame`` out, if any."""
        while frame is not None:
            if frame.f_code.co_filename in self.files:
                return frame
            frame = frame.f_back
        return None

    def of(self, check: str) -> list[Noticed]:
        """What was noticed in check ``check``, and at import (which every check meets in grade).

        A signal sent in a check that started processes is left out: it goes to those processes (a pool
        ending its workers), which grade never lets start, so grade would never see it sent.
        """
        found = [n for n in self.noticed if n.check in (check, IMPORT)]
        if any(n.category == categories.PROCESSES for n in found):
            found = [n for n in found if n.category != categories.SIGNALS]
        return found


_installed: list[Recorder] = []
SPAWN_EVENT = "os.posix_spawn"  # what a process start raises, raised for multiprocessing's that raise none
WATCHED = "_dedup_harness_watched"


def start(recorder: Recorder) -> Recorder:
    """Put ``recorder`` on this process's audit hooks and switch it on (one hook per process, the last started)."""
    if not _installed:
        sys.addaudithook(_dispatch)
        watch_spawns()
    _installed[:] = [recorder]
    recorder.on = True
    return recorder


def watch_spawns() -> None:
    """``multiprocessing.util.spawnv_passfds`` raises the audit event of a process start, then does what it did."""
    import multiprocessing.util as util

    original = util.spawnv_passfds
    if getattr(original, WATCHED, False):
        return

    def spawnv_passfds(path: Any, args: Any, passfds: Any) -> Any:
        sys.audit(SPAWN_EVENT, path, args, None)
        return original(path, args, passfds)

    setattr(spawnv_passfds, WATCHED, True)
    util.spawnv_passfds = spawnv_passfds


def _dispatch(event: str, args: tuple[Any, ...]) -> None:
    for recorder in _installed:
        recorder(event, args)


def interpreter_folders() -> list[str]:
    """What the interpreter reads to run and import (its standard library, its site-packages, sys.path): reads
    there are the worker's too."""
    paths = [*sysconfig.get_paths().values(), sys.prefix, sys.base_prefix, sys.exec_prefix]
    paths += [p for p in sys.path if p and os.path.isabs(p)]
    return sorted({os.path.realpath(p) for p in paths}) + list(SYSTEM_READ_ONLY)
