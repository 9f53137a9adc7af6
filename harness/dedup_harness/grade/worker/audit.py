"""The worker's audit hook: a second layer inside the process, under the sandbox's own.

It refuses, with ``PermissionError`` (EPERM, as the seccomp filter would), every attempt to reach
the network (a socket, a lookup, a connection), to start a process or a program, and to signal any
process but the worker itself; and it notes what else a grader wants to know (ctypes, importing the
test tools, touching files outside the worker's folders, making multiprocessing's locks, which
Landlock refuses before any process starts). Each attempt is sent to the grader at once, so even a
submission that never replies gets it listed in its report.

A note travels as words only; how it begins says the category of the rule it met (``OPENINGS``,
read back by ``category_of``), for the feedback's plain words on what the grader refuses.

It is not a protection on its own: a submission shares this process and can get around an audit
hook (ctypes, or patching this module). The kernel's layers (namespaces, Landlock, seccomp, the
worker's own uid) are the protections; this one makes refusals visible in every tier, and holds
where a kernel layer is missing.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from typing import Any, NamedTuple

from . import categories
from .wire import MAX_ATTEMPTS

PROCESS_EVENTS = ("os.fork", "os.forkpty", "os.posix_spawn", "os.exec", "os.system", "subprocess.Popen", "pty.spawn")
LOOKUPS = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr")
CONNECTIONS = {"socket.connect": "connect to", "socket.sendto": "send to", "socket.sendmsg": "send to"}
FAMILIES = {1: "AF_UNIX", 2: "AF_INET", 10: "AF_INET6", 16: "AF_NETLINK", 17: "AF_PACKET"}
TEST_TOOLS = ("pytest", "_pytest", "hypothesis", "dedup_harness")
CHANGES = ("os.remove", "os.rmdir", "shutil.rmtree", "os.rename", "os.truncate")
SYSTEM_READS = ("/usr/", "/proc/", "/dev/", "/etc/")
# Imported only to make a semaphore shared between processes (a pool, a queue, a lock of multiprocessing,
# a ProcessPoolExecutor): its file under /dev/shm is refused by Landlock, where no hook sees the call.
PROCESS_LOCKS = "multiprocessing.synchronize"
NETWORK, PROCESS, SIGNAL = "tried to reach the network", "tried to start a process", "tried to send signal"
READ, WRITE, CHANGE, FOLDER = "tried to read", "tried to write", "tried to delete or change", "tried to make a folder"
OPENINGS = {
    NETWORK: categories.NETWORK,
    PROCESS: categories.PROCESSES,
    SIGNAL: categories.SIGNALS,
    **dict.fromkeys((READ, WRITE, CHANGE, FOLDER), categories.FILES),
}


def category_of(note: str) -> str:
    """The category of the rule a note of this hook's met (``categories.NONE`` for the others)."""
    return next((category for opening, category in OPENINGS.items() if note.startswith(opening)), categories.NONE)


def _network(event: str, args: tuple[Any, ...]) -> str | None:
    """What a network event tried, in words, or None when the event is not one."""
    if event == "socket.__new__":
        return f"open a socket ({FAMILIES.get(args[1], args[1])})"
    if event in LOOKUPS:
        return f"look up {args[:2] if event == 'socket.getaddrinfo' else args[0]!r}"
    if event in CONNECTIONS:
        return f"{CONNECTIONS[event]} {args[1]!r}"
    if event == "socket.bind":
        return f"listen on {args[1]!r}"
    return None


class Met(NamedTuple):
    """What an event met: the category of its rule (``categories.NONE`` for a note no rule has), the note's words,
    and whether the rule refuses it. ``check`` reads the same rules to tell a student what grade would refuse."""

    category: str
    note: str
    refused: bool


class AuditHook:
    """Refuses network, process creation and signals to others; notes the rest; tells the grader at once."""

    def __init__(self, send: Callable[[str], None], allowed: list[str], read: list[str] | None = None) -> None:
        self.send = send  # sends one attempt's words to the grader
        self.allowed = allowed  # folders whose files the worker may touch without a note
        self.read = read or []  # folders whose files it may read without a note (the allowed packages' copy)
        self.noted: list[str] = []
        self.refusing = True  # off only while the grader's own isolation probe runs

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        try:
            note, refuse = self.judge(event, args)
        except Exception:
            return
        if note and refuse:
            note += " (refused)"
        if note and note not in self.noted and len(self.noted) < MAX_ATTEMPTS:
            self.noted.append(note)
            # Sent at once, not with the next reply: a fork bomb or a hang may never reply.
            self.send(note[:300])
        if refuse and self.refusing:
            raise PermissionError(errno.EPERM, f"refused by the grading sandbox ({note})")

    def judge(self, event: str, args: tuple[Any, ...]) -> tuple[str | None, bool]:
        """The words for an event (None: nothing to say) and whether it is refused."""
        met = self.rule(event, args)
        return (met.note, met.refused) if met is not None else (None, False)

    def rule(self, event: str, args: tuple[Any, ...]) -> Met | None:
        """The rule an event meets, with its category as data (None: nothing to say)."""
        if (what := _network(event, args)) is not None:
            return Met(categories.NETWORK, f"{NETWORK}: {what}", True)
        if event in PROCESS_EVENTS:
            return Met(categories.PROCESSES, f"{PROCESS} ({event})", True)
        if (event == "os.kill" and args[0] != os.getpid()) or event == "os.killpg":
            return Met(categories.SIGNALS, f"{SIGNAL} {args[1]} to other processes", True)
        return self.notice(event, args)

    def notice(self, event: str, args: tuple[Any, ...]) -> Met | None:
        """What the hook notes without refusing (the kernel's layers refuse some of it)."""
        if event == "ctypes.dlopen" or (event.startswith("ctypes.") and event != "ctypes.dlsym"):
            return Met(categories.NONE, f"used ctypes ({event})", False)
        if event == "import" and str(args[0]).split(".")[0] in TEST_TOOLS:
            return Met(categories.NONE, f"tried to import {args[0]}", False)
        if event == "import" and args[0] == PROCESS_LOCKS:
            words = f"{PROCESS} (multiprocessing: a pool, a queue or a lock shared between processes)"
            return Met(categories.PROCESSES, words, False)
        target = self.touched(event, args)
        return Met(categories.FILES, target, False) if target else None

    def touched(self, event: str, args: tuple[Any, ...]) -> str | None:
        """What a file event tried outside the worker's folders, in words (None: nothing, or inside them)."""
        if event in CHANGES:
            target = self.outside(args[0])
            return f"{CHANGE} {target}" if target else None
        if event == "os.mkdir":  # where, not its name: one note however many folders it tries to make there
            target = self.outside(args[0])
            return f"{FOLDER} in {os.path.dirname(target)}" if target else None
        if event == "open":
            path, mode, flags = args[0], args[1], args[2]
            writes = isinstance(mode, str) and any(c in mode for c in "wax+")
            writes = writes or (isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)))
            target = self.outside(path)
            if target and not target.startswith(SYSTEM_READS) and (writes or not _within(target, self.read)):
                return f"{WRITE if writes else READ} {target}"
        return None

    def outside(self, path: Any) -> str | None:
        """The full path when it lies outside the worker's folders, else None."""
        if isinstance(path, int):
            return None
        text = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else ""
        full = os.path.realpath(text) if text else ""
        return None if not full or _within(full, self.allowed) else full


def _within(path: str, folders: list[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)
