"""``dedup-harness start [DIR]``: write the stub ``dedup.py`` a student starts from (the chapter's ``ol start``).

DIR (the working folder by default) gets ``dedup.py``: the contract's names, signatures and
docstrings, ``STATS_KEYS``, and bodies that raise ``NotImplementedError`` naming their function
(``check/stub.py``). A ``dedup.py`` already there is never overwritten: the file is written aside
and linked into place, which fails when the name is taken, so nothing a student wrote is lost.
Exit status 0 when written, 2 when DIR is not a folder or already holds a ``dedup.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from pathlib import Path

from dedup_harness.check.stub import stub_source
from dedup_harness.commands.outputs import fail

HELP = "write the stub dedup.py you start from (into DIR, the working folder by default); never overwrites one"
NAME = "dedup.py"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", nargs="?", default=".", metavar="DIR", help="where dedup.py goes (default: here)")


def run(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    if not folder.is_dir():
        return fail("start", f"{folder}: not a folder (make it first, or name another)")
    target = folder / NAME
    if target.exists() or target.is_symlink():
        return fail("start", f"{target} already exists: start leaves it as it is (move it away to start afresh)")
    try:
        write_new(target, stub_source())
    except FileExistsError:
        return fail("start", f"{target} already exists: start leaves it as it is (move it away to start afresh)")
    except OSError as exc:
        return fail("start", f"cannot write {target}: {exc.strerror or exc}")
    print(f"wrote {target}: every function raises NotImplementedError until you write it.")
    print("Next: `dedup-harness tests` lists the checks; `dedup-harness check` runs them on your code.")
    return 0


def write_new(target: Path, text: str) -> None:
    """``text`` as the new file ``target``, whole or not at all; FileExistsError when the name is taken."""
    descriptor, part = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(part, 0o666 & ~_umask())
        try:
            os.link(part, target)  # fails if the name is taken, unlike a rename
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links: made only if the name is free, then written
            with open(target, "x", encoding="utf-8") as file:
                file.write(text)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(part)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
