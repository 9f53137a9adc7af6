"""The calls the worker's seccomp filter refuses, as the kernel tells the grader: a list the submission cannot edit.

The worker installs its filter with a listener (SECCOMP_FILTER_FLAG_NEW_LISTENER) whose refusals are
user notifications, hands the listener to the grader over a unix socket (SCM_RIGHTS) before any
submission code runs, and closes its own copies. From then on each call the filter refuses waits in
the kernel until a thread here answers it, always with EPERM (the errno the filter would have
returned itself), and records it first. Nothing is ever let through (no
SECCOMP_USER_NOTIF_FLAG_CONTINUE): a notification decides nothing, so reading its arguments races
with nothing; and as the words come from the call's registers, not from the worker's memory, the
submission cannot change them after the fact. Its filter also refuses seccomp(2) and
prctl(PR_SET_SECCOMP): no filter of the submission's own can take precedence and answer first.

Each refusal is kept with its category (``worker/categories.py``): which of the grader's rules the
call met, decided from the call and its arguments as the kernel gave them, for the feedback's words.

What the kernel reports here is seccomp's part only (sockets, processes, signals to others, ptrace,
mounts...). What Landlock and the namespaces refuse (files outside the worker's folders) reaches no
listener: those attempts come from the worker's own audit hook, which the submission can silence.

Modelled on how container managers take a listener from the process they start (the seccomp_unotify
manual; crun's and LXD's notify receivers), in the standard library only.
"""

from __future__ import annotations

import array
import contextlib
import enum
import errno
import fcntl
import os
import select
import socket
import struct
import threading
from typing import NamedTuple

from dedup_harness.grade.worker import arches, categories, seccomp

# struct seccomp_notif (id, pid, flags, then struct seccomp_data: nr, arch, instruction pointer, six
# arguments) and struct seccomp_notif_resp (id, val, error, flags); their ioctls are _IOWR('!', n, size).
NOTIF = struct.Struct("<QII iIQ6Q")
RESPONSE = struct.Struct("<QqiI")
NOTIF_RECV = 3 << 30 | NOTIF.size << 16 | ord("!") << 8 | 0
NOTIF_SEND = 3 << 30 | RESPONSE.size << 16 | ord("!") << 8 | 1
LISTENER_LINK = "anon_inode:seccomp notify"
KEPT = 200  # different refusals kept per worker; the report lists fewer
# The category of each reason the filter gives (``seccomp.DENIED``'s groups, ``seccomp.ARGUMENT_CHECKED``'s words).
CATEGORY_OF_REASON = {
    "network": categories.NETWORK,
    "new programs and processes": categories.PROCESSES,
    seccomp.SIGNALS: categories.SIGNALS,
    seccomp.SHARED_MEMORY: categories.SHARED_MEMORY,
}


class Refusal(NamedTuple):
    words: str  # what the call was and why it is refused, in one line
    category: str  # the rule it met (``categories``), or categories.NONE


def _signed(value: int) -> int:
    """The low 32 bits of a register as a C int (a pid of -1 arrives as 0xffffffff...)."""
    low = value & 0xFFFFFFFF
    return low - (1 << 32) if low >= 1 << 31 else low


def _named(kind: type[enum.IntEnum], number: int) -> str:
    """A socket family's or type's name, as the standard library's ``socket`` knows it."""
    try:
        return kind(number).name
    except ValueError:
        return str(number)


def _call(name: str, args: tuple[int, ...]) -> str:
    """The call in words a reader knows, with the arguments that say what it was for."""
    if name == "socket":
        family, kind = args[0] & 0xFFFFFFFF, args[1] & 0xF
        return f"socket({_named(socket.AddressFamily, family)}, {_named(socket.SocketKind, kind)})"
    if name in ("kill", "tkill", "rt_sigqueueinfo"):
        return f"{name}(pid {_signed(args[0])}, signal {_signed(args[1])})"
    if name in ("tgkill", "rt_tgsigqueueinfo"):
        return f"{name}(pid {_signed(args[0])}, signal {_signed(args[2])})"
    if name == "clone":
        return "clone() of a new process" if not args[0] & seccomp.CLONE_THREAD else "clone() into new namespaces"
    return f"{name}()"


def _arch(nr: int, audit_arch: int) -> arches.Arch | None:
    """The architecture of a call this machine's tables name (None: another architecture's, or an x32 call)."""
    arch = next((a for a in arches.ARCHES.values() if a.audit_arch == audit_arch), None)
    return None if arch is None or (arch.has_x32 and nr & arches.X32_SYSCALL_BIT) else arch


def _name(arch: arches.Arch, nr: int) -> str:
    return next((n for n, number in arch.syscalls.items() if number == nr), f"system call {nr}")


def describe(nr: int, audit_arch: int, args: tuple[int, ...]) -> str:
    """What one refused call was, and why it is refused, in one line."""
    arch = _arch(nr, audit_arch)
    if arch is None and any(a.audit_arch == audit_arch for a in arches.ARCHES.values()):
        return f"the kernel refused an x32 system call (number {nr & ~arches.X32_SYSCALL_BIT})"
    if arch is None:
        return f"the kernel refused a system call of another architecture (number {nr}, audit arch {audit_arch:#x})"
    name = _name(arch, nr)
    return f"the kernel refused {_call(name, args)}: {_reason(name)} (seccomp)"


def _reason(name: str) -> str:
    """Why the filter refuses the call ``name`` (a group of ``seccomp.DENIED``, or its argument rule's words)."""
    group = next((group for group, names in seccomp.DENIED.items() if name in names), None)
    return group or seccomp.ARGUMENT_CHECKED.get(name, "refused by the filter")


def category(nr: int, audit_arch: int, args: tuple[int, ...]) -> str:
    """The rule one refused call met (``categories``): a new process, a socket, a signal to another process."""
    arch = _arch(nr, audit_arch)
    name = _name(arch, nr) if arch is not None else ""
    if name == "clone":  # as ``_call`` says it: a new process, or a thread into new namespaces
        return categories.PROCESSES if not args[0] & seccomp.CLONE_THREAD else categories.NONE
    return CATEGORY_OF_REASON.get(_reason(name), categories.NONE)


class KernelRefusals:
    """Takes the worker's listener, answers each refused call with EPERM on a thread, and keeps its words."""

    def __init__(self, channel: socket.socket) -> None:
        self.channel = channel  # the grader's end of the socket the worker hands its listener over
        self.lock = threading.Lock()
        self.decided = threading.Event()
        self.listener: int | None = None
        self.found: list[Refusal] = []  # every different refusal, in order, at most KEPT
        self.taken = 0  # how many of ``found`` ``take`` has handed out
        self.stop_read, self.stop_write = os.pipe()
        self.thread = threading.Thread(target=self._run, name="kernel-refusals", daemon=True)
        self.thread.start()

    def listening(self, timeout: float) -> bool:
        """Does the kernel report this worker's refusals to the grader? (Decided before its first word.)"""
        self.decided.wait(timeout)
        return self.listener is not None

    def take(self) -> list[Refusal]:
        """The refusals recorded since the last call."""
        with self.lock:
            new, self.taken = self.found[self.taken :], len(self.found)
        return new

    def close(self) -> None:
        """Stop answering (a call still waiting then fails with ENOSYS) and free everything; once is enough."""
        if self.channel.fileno() < 0:
            return
        os.write(self.stop_write, b"x")
        self.thread.join(timeout=5)
        for fd in (self.stop_read, self.stop_write):
            os.close(fd)
        self.channel.close()

    # -- the thread -----------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self.listener = self._receive()
        finally:
            self.decided.set()
        if self.listener is None:
            return
        try:
            while self._wait(self.listener):
                self._answer(self.listener)
        finally:
            os.close(self.listener)

    def _wait(self, fd: int) -> bool:
        """Until ``fd`` is readable (True) or the watch is stopped or the worker gone (False)."""
        poll = select.poll()
        poll.register(fd, select.POLLIN)
        poll.register(self.stop_read, select.POLLIN)
        events = dict(poll.poll())
        return self.stop_read not in events and bool(events.get(fd, 0) & select.POLLIN)

    def _receive(self) -> int | None:
        """The listener the worker sends, checked to be one; None when it closes the socket without."""
        if not self._wait(self.channel.fileno()):
            return None
        room = socket.CMSG_SPACE(4 * array.array("i").itemsize)
        try:
            data, ancillary, _, _ = self.channel.recvmsg(1, room, socket.MSG_CMSG_CLOEXEC)
        except OSError:
            return None
        fds = array.array("i")
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
        for extra in fds[1:]:
            os.close(extra)
        if not data or not fds:
            return None
        if _link(fds[0]) != LISTENER_LINK:  # whatever else the worker sent is not what we asked for
            os.close(fds[0])
            return None
        return fds[0]

    def _answer(self, listener: int) -> None:
        notice = bytearray(NOTIF.size)  # zeroed, as the kernel requires
        try:
            fcntl.ioctl(listener, NOTIF_RECV, notice)
        except OSError:  # the call was interrupted, or its thread died, before we read it
            return
        ident, _, _, nr, audit_arch, _, *args = NOTIF.unpack(notice)
        with contextlib.suppress(OSError):  # it is gone already: the call was refused all the same
            fcntl.ioctl(listener, NOTIF_SEND, RESPONSE.pack(ident, 0, -errno.EPERM, 0))
        try:
            refusal = Refusal(describe(nr, audit_arch, tuple(args)), category(nr, audit_arch, tuple(args)))
        except Exception:  # never let a description end the thread that answers: calls would wait on it
            refusal = Refusal(f"the kernel refused system call {nr} (seccomp)", categories.NONE)
        self._record(refusal)

    def _record(self, refusal: Refusal) -> None:
        with self.lock:
            if refusal not in self.found and len(self.found) < KEPT:
                self.found.append(refusal)


def _link(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""
