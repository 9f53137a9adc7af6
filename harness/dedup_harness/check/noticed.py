"""What grade would refuse, noticed while a student's code runs in ``check``'s own process: an audit hook that
records and refuses nothing.

The worker refuses child processes (and their pipes), sockets, files outside the stage's folders,
signals to other processes and memory outside the process; in ``check``'s process all five work, and
the student would see full marks that grade gives nothing for. The rules are the worker's own
(``grade/worker/audit.py``; the seccomp filter's for ``UNAUDITED``), asked only of what the student's
code does: an event counts when a frame of one of their files is on the stack, never the suite's,
pytest's or Hypothesis's.

Audit hooks (PEP 578) need no /proc, namespace or Linux call. A hook cannot be removed, so it is added
once per process and switched off when its recording ends. The gaps are closed by wrapping calls to
raise an event first (``watch_unaudited``): multiprocessing's spawnv_passfds (spawn and forkserver,
macOS's default) raises ``os.posix_spawn``'s, so a pool is noticed on a Mac as ``os.fork`` notices it
on Linux; ``os.pipe`` and ``os.memfd_create`` raise one of their own name. An import counts only
inside a check, and only what is used counts: importing ProcessPoolExecutor imports the pipes' module.
"""

from __future__ import annotations

import contextlib
import os
import sys
import sysconfig
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from dedup_harness.grade.worker import audit, categories, seccomp

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
CTYPES = "ctypes."  # the prefix of ctypes' events: what its calls do, only the kernel's filter sees
# What grade's seccomp filter refuses that CPython raises no audit event for: check's wrapper of each call
# raises an event of its name (``watch_unaudited``), judged in the words of the filter's reason.
UNAUDITED = {
    "os.pipe": audit.Note(f"tried to make a pipe (os.pipe): {seccomp.PIPES}", True, categories.PROCESSES),
    "os.pipe2": audit.Note(f"tried to make a pipe (os.pipe2): {seccomp.PIPES}", True, categories.PROCESSES),
    "os.memfd_create": audit.Note(
        f"tried to make an anonymous memory file (os.memfd_create): {seccomp.SHARED_MEMORY}",
        True,
        categories.SHARED_MEMORY,
    ),
}
SYSTEM_READ_ONLY = ("/usr/share/zoneinfo", "/dev/urandom", "/etc/ld.so.cache")
# A call through a folder's descriptor (``os.open(name, dir_fd=fd)`` and the like), which CPython audits with the
# name alone: check's wrapper raises this, with whether it writes and the folder's identity and its parents'.
DIR_FD = "dedup_harness.dir_fd"
WITH_DIR_FD = ("open", "mkdir", "unlink", "remove", "rmdir", "rename", "replace", "symlink", "link", "mkfifo")
_BUSY = threading.local()  # set while the hook, or a wrapper's own look at a folder, runs: nothing there is noticed


@dataclass(frozen=True)
class Noticed:
    """One thing grade would refuse: in which check (or ``IMPORT``), its rule's category, the words, and where in the
    student's code it happened."""

    check: str
    category: str
    note: str
    site: str  # "dedup.py line 40, in _spool"


class Noticer:
    """Asks grade's rules about every event the student's files cause, and keeps what grade would refuse."""

    def __init__(self, student_files: Sequence[Path], writable: Sequence[str], readable: Sequence[str]) -> None:
        self.files = {str(path) for path in student_files} | {os.path.realpath(path) for path in student_files}
        self.rules = audit.AuditHook(lambda note, category: None, list(writable), list(readable))
        self.writable, self.readable = _identities(writable), _identities([*writable, *readable])
        self.noticed: list[Noticed] = []
        self.unforeseen: list[
            str
        ] = []  # where the student's code used ctypes, whose calls grade's kernel filter judges
        self.check: str | None = None  # the check running (None: between checks, where nothing is recorded)
        self.on = False

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.on or getattr(_BUSY, "busy", False):
            return
        if event not in EVENTS and event not in UNAUDITED and event != DIR_FD and not event.startswith(CTYPES):
            return
        if event == "import" and args[0] not in (*audit.PROCESS_MACHINERY, audit.SHARED_MEMORY):
            return
        _BUSY.busy = True  # what this hook calls raises events of its own
        try:
            self._record(event, args)
        except Exception:  # a hook must never break the code it watches
            pass
        finally:
            _BUSY.busy = False

    def _record(self, event: str, args: tuple[Any, ...]) -> None:
        frame = self._student_frame(sys._getframe(2))
        if frame is None:
            return
        if event.startswith(CTYPES):
            self._unforeseen(frame)
            return
        met = self._through_folder(*args) if event == DIR_FD else UNAUDITED.get(event) or self.rules.judge(event, args)
        if met is None or met.category == categories.NONE:
            return
        where = IMPORT if frame.f_code.co_name == "<module>" else self.check
        if where is None or (where == IMPORT and event == "import"):
            return  # the shrinker's reruns (its check noticed it already), or an import that uses nothing yet
        if any((n.check, n.category) == (where, met.category) for n in self.noticed):
            return  # the first of each kind in a check is what grade's refusal stops at; the rest never happen there
        self.noticed.append(Noticed(where, met.category, met.text, site_of(frame)))

    def _through_folder(self, writes: bool, folders: list[tuple[int, int]]) -> audit.Note | None:
        """A call through a folder's descriptor, judged by that folder: inside the stage's folders when it or a
        folder above it is one of them."""
        if (self.writable if writes else self.readable).intersection(folders):
            return None
        what = f"tried to {'write' if writes else 'read'} a file through a descriptor of a folder outside the stage's"
        return audit.Note(what, True, categories.FILES)

    def _unforeseen(self, frame: FrameType) -> None:
        """A call through ctypes reaches the kernel with no event to judge: grade's seccomp filter may refuse it (System
        V shared memory, a fork), and check cannot say. The first site is kept."""
        if not self.unforeseen:
            self.unforeseen.append(site_of(frame))

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


def site_of(frame: FrameType) -> str:
    return f"{Path(frame.f_code.co_filename).name} line {frame.f_lineno}, in {frame.f_code.co_qualname}"


_installed: list[Noticer] = []
SPAWN_EVENT = "os.posix_spawn"  # what a process start raises, raised for multiprocessing's that raise none
WATCHED = "_dedup_harness_watched"


def start(recorder: Noticer) -> Noticer:
    """Put ``recorder`` on this process's audit hooks and switch it on (one hook per process, the last started)."""
    if not _installed:
        sys.addaudithook(_dispatch)
        watch_unaudited()
    _installed[:] = [recorder]
    recorder.on = True
    return recorder


def watch_unaudited() -> None:
    """The calls grade refuses that raise no audit event (or one without what it is about) each raise one, then do
    what they did: multiprocessing's ``spawnv_passfds`` and ``_posixsubprocess.fork_exec`` the event of a process
    start; ``os.pipe``, ``os.pipe2`` and ``os.memfd_create`` their own; a call through a folder's descriptor
    ``DIR_FD``."""
    import _posixsubprocess
    import multiprocessing.util as util

    _raise_before(util, "spawnv_passfds", SPAWN_EVENT)
    _raise_before(_posixsubprocess, "fork_exec", "subprocess.Popen")
    for event in UNAUDITED:
        _raise_before(os, event.removeprefix("os."), event)
    for name in WITH_DIR_FD:
        _raise_dir_fd_before(name)


def _raise_dir_fd_before(name: str) -> None:
    """``os.<name>`` raising DIR_FD first when it is given a folder's descriptor."""
    original = getattr(os, name, None)
    if original is None or getattr(original, WATCHED, False) or original not in os.supports_dir_fd:
        return

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        folders = [fd for key, fd in kwargs.items() if key.endswith("dir_fd") and type(fd) is int]
        if not any(recorder.on for recorder in _installed):
            folders = []  # once check's recording ends, a walk up from every folder would cost what is no one's
        for fd in folders:
            flags = args[1] if name == "open" and len(args) > 1 else kwargs.get("flags", 0)
            sys.audit(DIR_FD, name != "open" or bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)), _up(fd))
        if not folders:
            return original(*args, **kwargs)
        _BUSY.busy = True  # its own event names a path relative to the folder, not to the working folder
        try:
            return original(*args, **kwargs)
        finally:
            _BUSY.busy = False

    setattr(wrapped, WATCHED, True)
    setattr(os, name, wrapped)
    os.supports_dir_fd.add(wrapped)


def _up(fd: int) -> list[tuple[int, int]]:
    """The folder ``fd`` names and every folder above it, as (device, inode): no /proc, on any platform."""
    _BUSY.busy = True
    found: list[tuple[int, int]] = []
    try:
        here = _OPEN(".", os.O_RDONLY, dir_fd=fd)
        while len(found) < 256:
            seen = os.fstat(here)
            if found and found[-1] == (seen.st_dev, seen.st_ino):
                break  # the root is its own parent
            found.append((seen.st_dev, seen.st_ino))
            above = _OPEN("..", os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = above
        os.close(here)
    except OSError:
        pass
    finally:
        _BUSY.busy = False
    return found


_OPEN = os.open


def _identities(folders: Sequence[str]) -> set[tuple[int, int]]:
    found = set()
    for folder in folders:
        with contextlib.suppress(OSError):
            seen = os.stat(folder)
            found.add((seen.st_dev, seen.st_ino))
    return found


def _raise_before(module: Any, name: str, event: str) -> None:
    original = getattr(module, name, None)
    if original is None or getattr(original, WATCHED, False):
        return  # not on this platform (memfd_create is Linux's), or wrapped already

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if event == SPAWN_EVENT:  # spawnv_passfds(path, args, passfds): os.posix_spawn's (path, argv, env)
            sys.audit(event, args[0], args[1], None)
        else:
            sys.audit(event, *args)
        return original(*args, **kwargs)

    setattr(wrapped, WATCHED, True)
    setattr(module, name, wrapped)


def _dispatch(event: str, args: tuple[Any, ...]) -> None:
    for recorder in _installed:
        recorder(event, args)


def interpreter_folders() -> list[str]:
    """What the interpreter reads to run and import (its standard library, its site-packages, sys.path): reads
    there are the worker's too."""
    paths = [*sysconfig.get_paths().values(), sys.prefix, sys.base_prefix, sys.exec_prefix]
    paths += [p for p in sys.path if p and os.path.isabs(p)]
    return sorted({os.path.realpath(p) for p in paths}) + list(SYSTEM_READ_ONLY)
