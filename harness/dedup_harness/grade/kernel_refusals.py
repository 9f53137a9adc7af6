"""The calls the worker's seccomp filter refuses, as the kernel tells the grader: a list the submission cannot edit.

The worker installs its filter with a listener (SECCOMP_FILTER_FLAG_NEW_LISTENER), hands it to the
grader over a unix socket (SCM_RIGHTS) before any submission code runs, and closes its own copies.
Each refused call then waits in the kernel until a thread here records it and answers EPERM (the
filter's own errno). Nothing is let through (no SECCOMP_USER_NOTIF_FLAG_CONTINUE), so reading the
arguments races with nothing, and the words come from the call's registers, not the worker's memory.
The filter refuses seccomp(2) and prctl(PR_SET_SECCOMP): no filter of the submission's can answer
first. Each refusal keeps its category (``worker/categories.py``), decided from the call's arguments.

Only seccomp's refusals arrive here; what Landlock and the namespaces refuse (files) is the audit
hook's note, except in the seccomp tier, where every file call is a notification the grader decides
(``file_decisions``: the call done here as the worker, answered with its result or a descriptor,
SECCOMP_IOCTL_NOTIF_ADDFD) and lists what it refused itself.

Modelled on the seccomp_unotify manual and crun's and LXD's notify receivers, in the standard library only.
"""

from __future__ import annotations

import array
import contextlib
import enum
import errno
import fcntl
import json
import os
import select
import socket
import struct
import threading
from dataclasses import dataclass
from typing import Any, NamedTuple

from dedup_harness.grade import identity
from dedup_harness.grade.file_decisions import Decision, FileDecisions, Rules
from dedup_harness.grade.worker import arches, categories, seccomp

# struct seccomp_notif (id, pid, flags, then struct seccomp_data: nr, arch, instruction pointer, six
# arguments) and struct seccomp_notif_resp (id, val, error, flags); their ioctls are _IOWR('!', n, size).
NOTIF = struct.Struct("<QII iIQ6Q")
RESPONSE = struct.Struct("<QqiI")
NOTIF_RECV = 3 << 30 | NOTIF.size << 16 | ord("!") << 8 | 0
NOTIF_SEND = 3 << 30 | RESPONSE.size << 16 | ord("!") << 8 | 1
ADDFD = struct.Struct("<QIIII")  # struct seccomp_notif_addfd: id, flags, srcfd, newfd, newfd_flags
NOTIF_ADDFD = 1 << 30 | ADDFD.size << 16 | ord("!") << 8 | 3  # _IOW('!', 3, struct seccomp_notif_addfd)
ADDFD_FLAG_SEND = 1 << 1  # install the descriptor and answer the call with it, at once
LONGEST_RULES = 1 << 16  # bytes of rules the worker may send with its listener (a few dozen paths)
LISTENER_LINK = "anon_inode:seccomp notify"
KEPT = 200  # different refusals kept per worker; the report lists fewer
# The category of each reason the filter gives (``seccomp.DENIED``'s groups, ``seccomp.ARGUMENT_CHECKED``'s words).
CATEGORY_OF_REASON = {
    "network": categories.NETWORK,
    "new programs and processes": categories.PROCESSES,
    seccomp.SIGNALS: categories.SIGNALS,
    seccomp.SHARED_MEMORY: categories.SHARED_MEMORY,
    seccomp.PIPES: categories.PROCESSES,
}


class Refusal(NamedTuple):
    words: str  # what the call was and why it is refused, in one line
    category: str  # the rule it met (``categories``), or categories.NONE


@dataclass(frozen=True)
class Decider:
    """Whose file calls the grader decides (the seccomp tier): the worker's pid, uid (None: the grader's own) and
    file size limit."""

    pid: int
    uid: int | None
    file_bytes: int


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

    def __init__(self, channel: socket.socket, decider: Decider | None = None) -> None:
        self.channel = channel  # the grader's end of the socket the worker hands its listener over
        self.decider = decider
        self.files: FileDecisions | None = None  # once the worker sent the rules its file calls are decided by
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
            if self.decider is not None and self.decider.uid is not None:
                identity.take(self.decider.uid)  # this thread opens and makes files as the worker
            self.listener = self._receive()
        except identity.IdentityError:
            self.listener = None  # nobody answers: every call waiting fails with ENOSYS, and the worker with it
        finally:
            self.decided.set()
        if self.listener is None:
            return
        try:
            while self._wait(self.listener):
                self._answer(self.listener)
        finally:
            os.close(self.listener)
            if self.files is not None:
                self.files.close()

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
        try:  # one message (a SOCK_SEQPACKET pair): the listener, and the rules whole or nothing
            data, ancillary, flags, _ = self.channel.recvmsg(LONGEST_RULES, room, socket.MSG_CMSG_CLOEXEC)
        except OSError:
            return None
        if flags & socket.MSG_TRUNC:
            data = b"{}"
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
        self.files = self._rules(data)
        return fds[0]

    def _rules(self, data: bytes) -> FileDecisions | None:
        """The decisions of the worker's file calls, when the grader asked for them and the worker sent its rules."""
        if self.decider is None or data == b"L":
            return None
        try:
            said: Any = json.loads(data)
        except ValueError:
            said = {}
        files = said.get("files") if isinstance(said, dict) else None
        rules = Rules.sent(files if isinstance(files, dict) else {}, self.decider.pid)
        return FileDecisions(self.decider.pid, rules, self.decider.file_bytes)

    def _answer(self, listener: int) -> None:
        notice = bytearray(NOTIF.size)  # zeroed, as the kernel requires
        try:
            fcntl.ioctl(listener, NOTIF_RECV, notice)
        except OSError:  # the call was interrupted, or its thread died, before we read it
            return
        ident, tid, _, nr, audit_arch, _, *args = NOTIF.unpack(notice)
        name = _name(arch, nr) if (arch := _arch(nr, audit_arch)) is not None else ""
        if name in seccomp.DECIDED:
            self._decide(listener, ident, tid, name, args)
            return
        with contextlib.suppress(OSError):  # it is gone already: the call was refused all the same
            fcntl.ioctl(listener, NOTIF_SEND, RESPONSE.pack(ident, 0, -errno.EPERM, 0))
        try:
            refusal = Refusal(describe(nr, audit_arch, tuple(args)), category(nr, audit_arch, tuple(args)))
        except Exception:  # never let a description end the thread that answers: calls would wait on it
            refusal = Refusal(f"the kernel refused system call {nr} (seccomp)", categories.NONE)
        self._record(refusal)

    def _decide(self, listener: int, ident: int, tid: int, name: str, args: list[int]) -> None:
        """A file call of the seccomp tier's: done by the grader (or refused), and answered with its outcome."""
        try:
            decision = self.files.decide(tid, name, args) if self.files is not None else None
        except Exception:  # a bug of ours: the call fails, the thread that answers every call goes on
            decision = None
        if decision is None:
            decision = Decision(result=-errno.EACCES, refused=f"the grader refused {name}(): no rules to decide it by")
        if decision.fd is not None:
            try:
                fcntl.ioctl(
                    listener, NOTIF_ADDFD, bytearray(ADDFD.pack(ident, ADDFD_FLAG_SEND, decision.fd, 0, os.O_CLOEXEC))
                )
            except OSError as error:  # no descriptor left in the worker, or the call is gone: it ends, or is gone
                _respond(listener, ident, -(error.errno or errno.EIO))
            finally:
                os.close(decision.fd)
        else:
            _respond(listener, ident, decision.result)
        if decision.refused is not None:
            self._record(Refusal(decision.refused, categories.FILES))

    def _record(self, refusal: Refusal) -> None:
        with self.lock:
            if refusal not in self.found and len(self.found) < KEPT:
                self.found.append(refusal)


def _respond(listener: int, ident: int, result: int) -> None:
    """Answer the call ``ident`` with ``result`` (-errno when it failed)."""
    error, value = (result, 0) if result < 0 else (0, result)
    with contextlib.suppress(OSError):  # the call is gone already
        fcntl.ioctl(listener, NOTIF_SEND, RESPONSE.pack(ident, value, error, 0))


def _link(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""
