"""The worker's audit hook: a second layer inside the process, under the sandbox's own.

It refuses with ``PermissionError`` (EPERM, as seccomp would) the network, new processes and programs,
and signals to any process but the worker; and it notes what else a grader wants to know (ctypes,
importing the test tools, files outside the worker's folders, multiprocessing's locks or shared
memory). Each note goes to the grader at once, with its rule's category (``categories``), so even a
submission that never replies has it listed. It is no protection on its own (a submission can get
around a hook in its own process): it makes refusals visible in every tier and holds where a kernel
layer is missing.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from . import categories
from .protocol import MAX_ATTEMPTS

PROCESS_EVENTS = ("os.fork", "os.forkpty", "os.posix_spawn", "os.exec", "os.system", "subprocess.Popen", "pty.spawn")
LOOKUPS = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr")
CONNECTIONS = {"socket.connect": "connect to", "socket.sendto": "send to", "socket.sendmsg": "send to"}
TEST_TOOLS = ("pytest", "_pytest", "hypothesis", "dedup_harness")
CHANGES = ("os.remove", "os.rmdir", "shutil.rmtree", "os.rename", "os.truncate")
SYSTEM_READS = ("/usr/", "/proc/", "/dev/", "/etc/")
# Imported only to talk to other processes or share a semaphore with them (a pool, a queue, a lock of
# multiprocessing, a ProcessPoolExecutor): the pipe is refused by seccomp, the semaphore's file under /dev/shm
# by Landlock, before any process starts.
PROCESS_MACHINERY = ("multiprocessing.connection", "multiprocessing.synchronize")
# Imported only for POSIX shared memory (a file under /dev/shm, refused by Landlock or the grader), memory no
# measurement of the worker's would show.
SHARED_MEMORY = "_posixshmem"


class Note(NamedTuple):
    """What the hook says of one event: its words, whether it is refused, and the rule it met (``check`` reads
    the same rules to tell a student what grade would refuse)."""

    text: str
    refused: bool = False
    category: str = categories.NONE


def _family(number: Any) -> str:
    """A socket family's name (``socket`` is imported already when a socket is made)."""
    sockets = sys.modules.get("socket")
    try:
        return str(sockets.AddressFamily(number).name) if sockets is not None else str(number)
    except ValueError:
        return str(number)


def _network(event: str, args: tuple[Any, ...]) -> str | None:
    """What a network event tried, in words, or None when the event is not one."""
    if event == "socket.__new__":
        return f"open a socket ({_family(args[1])})"
    if event in LOOKUPS:
        return f"look up {args[:2] if event == 'socket.getaddrinfo' else args[0]!r}"
    if event in CONNECTIONS:
        return f"{CONNECTIONS[event]} {args[1]!r}"
    if event == "socket.bind":
        return f"listen on {args[1]!r}"
    return None


class AuditHook:
    """Refuses network, process creation and signals to others; notes the rest; tells the grader at once."""

    def __init__(self, send: Callable[[str, str], None], allowed: list[str], read: list[str] | None = None) -> None:
        self.send = send  # sends one attempt's words and category to the grader
        self.allowed = allowed  # folders whose files the worker may touch without a note
        self.read = read or []  # folders whose files it may read without a note (the allowed packages' copy)
        self.noted: list[str] = []
        self.refusing = True  # off only while the grader's own isolation probe runs

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        try:
            note = self.judge(event, args)
        except Exception:
            return
        if note is None:
            return
        text = f"{note.text} (refused)" if note.refused else note.text
        if text not in self.noted and len(self.noted) < MAX_ATTEMPTS:
            self.noted.append(text)
            # Sent at once, not with the next reply: a fork bomb or a hang may never reply.
            self.send(text[:300], note.category)
        if note.refused and self.refusing:
            raise PermissionError(errno.EPERM, f"refused by the grading sandbox ({text})")

    def judge(self, event: str, args: tuple[Any, ...]) -> Note | None:
        """What the hook says of an event (None: nothing)."""
        if (what := _network(event, args)) is not None:
            return Note(f"tried to reach the network: {what}", True, categories.NETWORK)
        if event in PROCESS_EVENTS:
            return Note(f"tried to start a process ({event})", True, categories.PROCESSES)
        if (event == "os.kill" and args[0] != os.getpid()) or event == "os.killpg":
            return Note(f"tried to send signal {args[1]} to other processes", True, categories.SIGNALS)
        return self.notice(event, args)

    def notice(self, event: str, args: tuple[Any, ...]) -> Note | None:
        if event == "ctypes.dlopen" or (event.startswith("ctypes.") and event != "ctypes.dlsym"):
            return Note(f"used ctypes ({event})")
        if event == "import" and str(args[0]).split(".")[0] in TEST_TOOLS:
            return Note(f"tried to import {args[0]}")
        if event == "import" and args[0] in PROCESS_MACHINERY:
            what = "tried to start a process (multiprocessing: a pool, a queue or a lock shared between processes)"
            return Note(what, category=categories.PROCESSES)
        if event == "import" and args[0] == SHARED_MEMORY:
            return Note("tried to use shared memory (multiprocessing.shared_memory)", category=categories.SHARED_MEMORY)
        if event in CHANGES:
            target = self.outside(args[0])
            return Note(f"tried to delete or change {target}", category=categories.FILES) if target else None
        if event == "os.mkdir":  # where, not its name: one note however many folders it tries to make there
            target = self.outside(args[0])
            where = os.path.dirname(target) if target else ""
            return Note(f"tried to make a folder in {where}", category=categories.FILES) if target else None
        if event == "open":
            path, mode, flags = args[0], args[1], args[2]
            writes = isinstance(mode, str) and any(c in mode for c in "wax+")
            writes = writes or (isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)))
            target = self.outside(path)
            if target and not target.startswith(SYSTEM_READS) and (writes or not _within(target, self.read)):
                return Note(f"tried to {'write' if writes else 'read'} {target}", category=categories.FILES)
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
