"""Files that appear whole or not at all: written under a temporary name beside the target, then renamed."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


@contextlib.contextmanager
def atomic_file(path: str | Path) -> Iterator[IO[bytes]]:
    """Open a temporary file beside ``path`` for writing; on success it replaces ``path``.

    On any exception (KeyboardInterrupt included) the temporary file is removed and ``path`` is untouched.
    """
    target = Path(path)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
