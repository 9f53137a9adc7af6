"""Uploads shaped as an unpacked archive can shape them: links, FIFOs, devices, sockets, hard links.

The hostile samples of ``submissions/hostile/`` are sources; these attacks are the shape of the folder
a source comes in, which git cannot carry (a FIFO, a device), so trusted code makes each one here, in
an empty folder, beside a classmate's folder holding a correct dedup.py (what a link would reach).
Each says what it tries and the verdict expected, as a sample does. ``zip -y`` and tar restore
links and FIFOs; a device takes root to make, and a student's tar made as root restores it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.core.paths import IMPL_ROOT

REFUSED = "a submission is regular files and folders only; nothing in it is followed or opened"


@dataclass(frozen=True)
class Shape:
    tries: str
    make: Callable[[Path, Path], None]  # (the submission's folder, the classmate's folder)
    named: str  # how the refusal names what it holds ("" when it is graded)


def _link_to_classmate(me: Path, classmate: Path) -> None:
    (me / "project").symlink_to(classmate, target_is_directory=True)


def _link_guesses(me: Path, classmate: Path) -> None:
    """Guesses at where a correct dedup.py lies: most lead nowhere, one reaches the installed reference."""
    for n, guess in enumerate(("../../alice", "/srv/class/bob", IMPL_ROOT / "corpus", "../../carol")):
        (me / f"guess{n}").symlink_to(guess, target_is_directory=True)


def _link_to_a_file(me: Path, classmate: Path) -> None:
    (me / "dedup.py").symlink_to(classmate / "dedup.py")


def _fifo(me: Path, classmate: Path) -> None:
    os.mkfifo(me / "dedup.py")


def _device(me: Path, classmate: Path) -> None:
    os.mknod(me / "dedup.py", stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero's numbers


def _socket(me: Path, classmate: Path) -> None:
    (me / "dedup.py").write_bytes((classmate / "dedup.py").read_bytes())
    os.mknod(me / "log.sock", stat.S_IFSOCK | 0o600)


def _hard_link(me: Path, classmate: Path) -> None:
    os.link(classmate / "dedup.py", me / "dedup.py")


SHAPES = {
    "link_to_classmate": Shape(
        "a folder holding only project -> ../classmate, to get the classmate's marks", _link_to_classmate, "project"
    ),
    "link_guesses": Shape(
        "links guessing where a correct dedup.py lies; one reaches the installed reference's corpus, the rest dangle",
        _link_guesses,
        "guess0 (a symbolic link), guess1 (a symbolic link), guess2 (a symbolic link), guess3 (a symbolic link)",
    ),
    "link_to_a_file": Shape("dedup.py -> the classmate's dedup.py", _link_to_a_file, "dedup.py (a symbolic link)"),
    "fifo": Shape("a dedup.py that is a FIFO: a read blocks the batch for good", _fifo, "dedup.py (a FIFO)"),
    "device": Shape("a dedup.py with /dev/zero's device numbers: a read never ends", _device, "dedup.py (a device)"),
    "socket": Shape("a socket beside a correct dedup.py", _socket, "log.sock (a socket)"),
    "hard_link": Shape(
        "a dedup.py that is a hard link to the classmate's: graded, and noted for staff", _hard_link, ""
    ),
}


def refusal(me: Path, shape: Shape) -> str:
    """The problem line a refused shape gets."""
    named = shape.named if "(" in shape.named else f"{shape.named} (a symbolic link)"
    return f"{me}: holds {named}; {REFUSED}"


HARD_LINK_NOTE = (
    "dedup.py has 2 names on its disk (a hard link): the same file is elsewhere too, perhaps in another submission"
)
