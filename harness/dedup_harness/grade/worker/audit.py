"""The worker's audit hook: a second layer inside the process, under the sandbox's own.

It refuses, with ``PermissionError`` (EPERM, as the seccomp filter would), every attempt to reach
the network (a socket, a lookup, a connection), to start a process or a program, and to signal any
process but the worker itself; and it notes what else a grader wants to know (ctypes, importing the
test tools, touching files outside the worker's folders). Each attempt is sent to the grader at
once, so even a submission that never replies gets it listed in its report.

It is not a protection on its own: a submission shares this process and can get around an audit
hook (ctypes, or patching this module). The kernel's layers (namespaces, Landlock, seccomp, the
worker's own uid) are the protections; this one makes refusals visible in every tier, and holds
where a kernel layer is missing.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from typing import Any

from .wire import MAX_ATTEMPTS

PROCESS_EVENTS = ("os.fork", "os.forkpty", "os.posix_spawn", "os.exec", "os.system", "subprocess.Popen", "pty.spawn")
LOOKUPS = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr")
CONNECTIONS = {"socket.connect": "connect to", "socket.sendto": "send to", "socket.sendmsg": "send to"}
FAMILIES = {1: "AF_UNIX", 2: "AF_INET", 10: "AF_INET6", 16: "AF_NETLINK", 17: "AF_PACKET"}
TEST_TOOLS = ("pytest", "_pytest", "hypothesis", "dedup_harness")
CHANGES = ("os.remove", "os.rmdir", "shutil.rmtree", "os.rename", "os.truncate")
SYSTEM_READS = ("/usr/", "/proc/", "/dev/", "/etc/")


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
        if (what := _network(event, args)) is not None:
            return f"tried to reach the network: {what}", True
        if event in PROCESS_EVENTS:
            return f"tried to start a process ({event})", True
        if (event == "os.kill" and args[0] != os.getpid()) or event == "os.killpg":
            return f"tried to send signal {args[1]} to other processes", True
        return self.notice(event, args), False

    def notice(self, event: str, args: tuple[Any, ...]) -> str | None:
        if event == "ctypes.dlopen" or (event.startswith("ctypes.") and event != "ctypes.dlsym"):
            return f"used ctypes ({event})"
        if event == "import" and str(args[0]).split(".")[0] in TEST_TOOLS:
            return f"tried to import {args[0]}"
        if event in CHANGES:
            target = self.outside(args[0])
            return f"tried to delete or change {target}" if target else None
        if event == "open":
            path, mode, flags = args[0], args[1], args[2]
            writes = isinstance(mode, str) and any(c in mode for c in "wax+")
            writes = writes or (isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)))
            target = self.outside(path)
            if target and not target.startswith(SYSTEM_READS) and (writes or not _within(target, self.read)):
                return f"tried to {'write' if writes else 'read'} {target}"
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
