"""The worker locks itself down before any submission code runs: Landlock, then seccomp, then a report.

``confine()`` needs no privilege and no namespace: the whole isolation where there are neither, a
second layer inside bubblewrap and unshare. It refuses with a second thread alive (Landlock binds only
the calling thread), sets no_new_privs, applies one Landlock ruleset where the kernel has it, and
installs the seccomp filter on every thread. A missing Landlock or syscall table is said in the
report; a layer asked for that fails raises ``ConfinementError``: nothing is half-applied silently.

``interpreter_paths`` are what CPython needs once confined: the standard library and ``sys.path``,
the folders of shared libraries already mapped (later imports load libcrypto, libffi...),
``/etc/ld.so.cache``, ``/usr/share/zoneinfo``, ``/dev/urandom`` and ``/dev/null``. Not /tmp: the
caller points TMPDIR at a folder it grants.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from . import landlock, seccomp
from .arches import current_arch
from .syscalls import ConfinementError, set_no_new_privs

SYSTEM_READ_ONLY = ("/etc/ld.so.cache", "/usr/share/zoneinfo", "/dev/urandom")
SYSTEM_READ_WRITE = ("/dev/null",)


def _shared_library_dirs() -> list[str]:
    """Folders of the shared objects already mapped into this process (from /proc/self/maps)."""
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5].startswith("/") and ".so" in os.path.basename(parts[5]):
            found.append(os.path.dirname(parts[5]))
    return landlock.unique(found)


def interpreter_paths() -> tuple[list[str], list[str]]:
    """(read-only, read-write) paths a confined CPython needs to keep importing and running.

    Relative ``sys.path`` entries such as '' are left out: they would grant the current folder.
    """
    imports = [os.path.dirname(os.__file__), *(p for p in sys.path if p and os.path.isabs(p))]
    read_only = landlock.unique([*imports, *_shared_library_dirs(), *SYSTEM_READ_ONLY])
    return read_only, list(SYSTEM_READ_WRITE)


class Report:
    """What is in force, one line of plain words per layer; ``protections`` names the layers for code."""

    __slots__ = ("abi", "arch", "protections", "rules", "words")

    def __init__(
        self, abi: int, arch: str, words: dict[str, str], protections: frozenset[str], rules: landlock.FileRules
    ) -> None:
        self.abi = abi
        self.arch = arch
        self.words = words
        self.protections = protections
        self.rules = rules

    def lines(self) -> list[str]:
        names = {"files": "files", "tcp": "TCP", "signals": "signals", "abstract_unix": "abstract unix sockets"}
        shown = [f"{label}: {self.words[key]}" for key, label in names.items()]
        return [f"Landlock ABI: {self.abi or 'not available'}", *shown, f"seccomp: {self.words['seccomp']}"]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, for the worker's first message to the grader."""
        return {
            "abi": self.abi,
            "arch": self.arch,
            **self.words,
            "protections": sorted(self.protections),
            "read_only": list(self.rules.read_only),
            "read_write": list(self.rules.read_write),
            "skipped": list(self.rules.skipped),
        }


def _signal_policy() -> seccomp.SignalPolicy:
    """Group signals only when the process leads its own group: else kill(0, ...) would reach the grader."""
    pid, pgid = os.getpid(), os.getpgrp()
    return seccomp.SignalPolicy(pid, pgid if pgid == pid else None)


def _extra_denied(abi: int) -> tuple[str, ...]:
    """Before ABI 3 Landlock did not check truncate(2) on a path: seccomp refuses it there.

    (ftruncate needs a descriptor opened for writing, which Landlock did check.)
    """
    return ("truncate",) if 1 <= abi < 3 else ()


def _seccomp_layer(
    enabled: bool,
    signals: seccomp.SignalPolicy,
    extra: Sequence[str] = (),
    report_to: int | None = None,
    files: dict[str, list[str]] | None = None,
) -> tuple[bool, str]:
    """The filter, if asked for; with ``report_to`` (a socket to the grader, closed here) its refusals go there,
    and with ``files`` the file calls too, for the grader to decide by those rules."""
    arch = current_arch() if enabled else None
    if arch is None:
        if report_to is not None:
            os.close(report_to)
        why = f"no syscall table for {os.uname().machine}" if enabled else "not requested"
        if files is not None:
            raise ConfinementError(f"the grader cannot decide the file calls: seccomp {why}")
        return False, f"NOT installed ({why})"
    reported = seccomp.install_filter(arch, signals, extra, report_to=report_to, files=files)
    groups = ", ".join([*seccomp.DENIED, *extra])
    told = "; each refusal reported to the grader by the kernel" if reported else ""
    decided = "; the file calls decided by the grader" if files is not None else ""
    return True, f"installed for {arch.name}: EPERM for {groups}; clone3 gets ENOSYS{told}{decided}"


def _landlock_layer(
    abi: int, read_only: Sequence[str], read_write: Sequence[str], hidden: Sequence[str], audit_log: bool
) -> tuple[landlock.FileRules | None, int, int]:
    """Landlock when available: the rules, and the net and scope masks handled."""
    if abi == 0:
        return None, 0, 0
    net, scoped = landlock.handled_net_rights(abi), landlock.handled_scopes(abi)
    flags = 0 if audit_log or abi < 7 else landlock.RESTRICT_SELF_LOG_SAME_EXEC_OFF
    rules = landlock.restrict(abi, read_only, read_write, hidden=hidden, net=net, scoped=scoped, flags=flags)
    return rules, net, scoped


def confine(
    read_only: Sequence[str] = (),
    read_write: Sequence[str] = (),
    *,
    hidden: Sequence[str] = (),
    runtime: bool = True,
    landlock_on: bool = True,
    seccomp_on: bool = True,
    require_landlock: bool = False,
    audit_log: bool = True,
    report_to: int | None = None,
    grader_decides_files: bool = False,
) -> Report:
    """Confine the calling process for good and report what is in force.

    ``runtime`` adds ``interpreter_paths()``; ``hidden`` paths stay unreadable even beneath a
    read-only one; ``require_landlock`` makes a kernel without Landlock an error; ``audit_log=False``
    asks Landlock (ABI 7) not to audit-log this process's denials, so hostile code cannot flood the
    kernel's log; ``report_to`` (a unix socket, taken and closed) receives the seccomp filter's
    listener, so the grader hears of each refusal (``seccomp.install_filter``). With
    ``grader_decides_files`` (and no Landlock: the seccomp tier) the grader decides every file call
    by the same rules, sent with the listener.
    """
    landlock.require_single_thread()
    abi = landlock.abi() if landlock_on and not grader_decides_files else 0
    if require_landlock and abi == 0:
        raise ConfinementError("Landlock is required but not available")
    if runtime:
        extra_ro, extra_rw = interpreter_paths()
        read_only, read_write = [*read_only, *extra_ro], [*read_write, *extra_rw]
    signals = _signal_policy()
    set_no_new_privs()
    rules, net, scoped = _landlock_layer(abi, read_only, read_write, hidden, audit_log)
    decided = None
    if grader_decides_files:
        rules = landlock.FileRules(landlock.unique(read_only), landlock.unique(read_write))
        decided = {"read_only": list(rules.read_only), "read_write": list(rules.read_write), "hidden": list(hidden)}
    installed, seccomp_words = _seccomp_layer(seccomp_on, signals, _extra_denied(abi), report_to, decided)
    return _report(abi, rules, net, scoped, installed, seccomp_words, signals, by_grader=decided is not None)


def _files_words(abi: int, rules: landlock.FileRules | None, *, by_grader: bool) -> str:
    if rules is None:
        return f"NOT restricted (Landlock {'unavailable' if abi == 0 else 'not requested'})"
    how = "the grader, each call a seccomp notification" if by_grader else "Landlock"
    paths = f"{len(rules.read_only)} read-only and {len(rules.read_write)} read-write paths"
    return f"everything denied except {paths} ({how})"


def _tcp_words(net: int, installed: bool) -> str:
    layers = ["bind and connect denied by Landlock"] if net else []
    layers += ["socket() denied by seccomp"] if installed else []
    return "; ".join(layers) or "NOT restricted"


def _scope_words(scoped: int, bit: int, what: str, seccomp_note: str) -> str:
    if scoped & bit:
        return f"{what} outside the sandbox denied (Landlock scope)"
    return seccomp_note or "NOT restricted (needs Landlock ABI 6)"


def _report(
    abi: int,
    rules: landlock.FileRules | None,
    net: int,
    scoped: int,
    installed: bool,
    seccomp_words: str,
    signals: seccomp.SignalPolicy,
    *,
    by_grader: bool = False,
) -> Report:
    group = "own process group" if signals.group is not None else "no group"
    in_force = {
        "files": rules is not None,
        "tcp": bool(net) or installed,
        "signals": bool(scoped & landlock.SCOPE_SIGNAL) or installed,
        "abstract_unix": bool(scoped & landlock.SCOPE_ABSTRACT_UNIX_SOCKET) or installed,
        "seccomp": installed,
    }
    words = {
        "files": _files_words(abi, rules, by_grader=by_grader),
        "tcp": _tcp_words(net, installed),
        "signals": _scope_words(
            scoped,
            landlock.SCOPE_SIGNAL,
            "signals to processes",
            f"only to itself and its {group} (seccomp)" if installed else "",
        ),
        "abstract_unix": _scope_words(
            scoped,
            landlock.SCOPE_ABSTRACT_UNIX_SOCKET,
            "connecting to abstract sockets",
            "no sockets at all (seccomp)" if installed else "",
        ),
        "seccomp": seccomp_words,
    }
    protections = frozenset(name for name, on in in_force.items() if on)
    return Report(abi, os.uname().machine, words, protections, rules or landlock.FileRules())
