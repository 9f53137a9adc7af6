"""What /proc says about processes and memory, read in one place.

Every reader here answers None (or nothing) for a process that ended while it looked: /proc changes
under any reader, and a process of the submission's may end at any moment. The kernel's formats:
``/proc/PID/status`` is "Name:\\tvalue" lines (memory in kB); ``/proc/PID/stat`` is the pid, the
command in parentheses (which may hold spaces and parentheses) and then plain fields, so they are
counted from the last ")".
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

PROC = Path("/proc")
STATE, PARENT, START = 0, 1, 19  # fields of /proc/PID/stat after the command: its state, its parent, its start


def status(pid: int | str) -> dict[str, list[str]]:
    """``/proc/PID/status`` as {field: its words} ({} once the process is gone); ``pid`` may be "self"."""
    try:
        lines = (PROC / str(pid) / "status").read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return {}
    return {name: value.split() for name, _, value in (line.partition(":") for line in lines)}


def memory_bytes(pid: int | str, field: str) -> int | None:
    """A memory field of ``/proc/PID/status`` (VmRSS, VmHWM...) in bytes, or None once the process is gone."""
    words = status(pid).get(field)
    return int(words[0]) * 1024 if words else None


def stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command (state first), or None once the process is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()


def start_ticks(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot); None when it is gone or a zombie."""
    fields = stat_fields(pid)
    return None if fields is None or fields[STATE] in ("Z", "X") else int(fields[START])


def available() -> bool:
    """Can this process read /proc at all? (Not on macOS, nor where a mount hides it.)"""
    return (PROC / "self" / "stat").is_file()


def pids() -> Iterator[int]:
    """Every process there is now."""
    with contextlib.suppress(OSError):
        for entry in PROC.iterdir():
            if entry.name.isdigit():
                yield int(entry.name)


def descendants(root: int) -> list[int]:
    """``root`` and every live process descended from it (through bubblewrap's or unshare's helpers), sorted."""
    children: dict[int, list[int]] = {}
    for pid in pids():
        fields = stat_fields(pid)
        if fields is not None:
            children.setdefault(int(fields[PARENT]), []).append(pid)
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return sorted(tree)


def anonymous_touched(pid: int) -> int | None:
    """The anonymous memory ``pid`` touched since its referenced bits were cleared (clear_refs 1), in bytes; None
    once it is gone or unreadable.

    ``/proc/PID/smaps`` gives, for each mapping, its referenced pages and its anonymous pages, not how
    many are both: each mapping counts the lesser. Anonymous memory is the process's own (its heap, its
    arenas, what it wrote over a private mapping of any file), so no other process's work counts; a
    file's pages count only as far as the mapping holds anonymous pages, and another process that reads
    the same file (a shared library) marks those pages referenced for every process that maps them.
    """
    try:
        lines = (PROC / str(pid) / "smaps").read_bytes().splitlines()
    except OSError:
        return None
    total = referenced = anonymous = 0
    for line in lines:
        if line.startswith(b"Referenced:"):
            referenced = int(line.split()[1])
        elif line.startswith(b"Anonymous:"):
            anonymous = int(line.split()[1])
        elif not line.split(maxsplit=1)[0].endswith(b":"):  # the next mapping's first line: its address range
            total, referenced, anonymous = total + min(referenced, anonymous), 0, 0
    return (total + min(referenced, anonymous)) * 1024


def has_capability(number: int) -> bool:
    """Does this process hold capability ``number`` in its effective set?"""
    effective = status("self").get("CapEff", ["0"])[0]
    return bool(int(effective, 16) >> number & 1)


def memory_available() -> int:
    """MemAvailable from /proc/meminfo, in bytes (0 when it cannot be read)."""
    try:
        lines = (PROC / "meminfo").read_text(encoding="ascii").splitlines()
    except OSError:
        return 0
    return next((int(line.split()[1]) << 10 for line in lines if line.startswith("MemAvailable:")), 0)
