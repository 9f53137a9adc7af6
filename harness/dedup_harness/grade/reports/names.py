"""Each submission's name in every output: the path as given, and a Gradescope folder no other submission shares.

JSON, CSV, JUnit, HTML and the terminal name a submission by its path as given on the command line,
made harmless (``harmless``; a CSV cell is what changes it most): two paths are two submissions
with two names, unless they differ only where a report writes escapes (a control character in one,
its escape written out in the other), and such a batch is refused before anything is graded
(``clash``).

A Gradescope folder is the path with every character but letters, digits, ``-``, ``_`` and ``.``
made ``_``, leading slashes and dots dropped (``alice/dedup.py`` -> ``alice_dedup.py``). Where two
paths of the batch give the same folder (``team 7/`` and ``team_7/``, or ``alice`` and ``alice/``),
or a folder longer than ``LONGEST`` bytes (UTF-8), each such folder is cut to ``LONGEST`` bytes (``fit``: whole
characters, the first ones kept) and gets ``-`` and the first 8 hex digits of the SHA-256 of its path as given
(``team_7-<8 hex digits>``, at most 209 bytes of the 255 a file name may have): the same folder for the same path in
every run of that batch, whichever shard grades it. No result is written over another.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Sequence

from dedup_harness.grade.reports import harmless

NAME_BYTES = 255  # the bytes a file name may have (NAME_MAX): every output's name is cut to fit it (``fit``)
LONGEST = 200  # bytes of a plain folder name
DIGITS = 8  # hex digits of the path's SHA-256 that tell two folders apart
SHOWN = 3  # clashing names a refusal quotes


def safe_name(submission: str) -> str:
    """A folder name for a submission's results: its path with separators made harmless."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in submission.strip("/"))
    return cleaned.lstrip(".") or "submission"


def folders(paths: Sequence[str]) -> dict[str, str]:
    """Each path's Gradescope folder in a batch of ``paths`` (all of them, not one shard's): no two the same
    unless ``clash`` says so."""
    plain = {path: safe_name(path) for path in paths}
    shared = Counter(plain.values())
    return {
        path: name if shared[name] == 1 and fit(name, LONGEST) == name else f"{fit(name, LONGEST)}-{_digest(path)}"
        for path, name in plain.items()
    }


def fit(name: str, room: int = NAME_BYTES) -> str:
    """``name``'s first characters that fit in ``room`` bytes of the file system (UTF-8): a stable cut, none split."""
    while len(os.fsencode(name)) > room:
        name = name[:-1]
    return name


def clash(paths: Sequence[str]) -> str | None:
    """Why the batch cannot be graded with a name of its own for each submission in every output, or None."""
    for what, names in (
        ("read the same once made printable", map(harmless.cell, paths)),
        ("would share a Gradescope folder", folders(paths).values()),
    ):
        same = sorted(name for name, count in Counter(names).items() if count > 1)
        if same:
            return f"two submissions' paths {what} ({', '.join(same[:SHOWN])}): rename one of them"
    return None


def _digest(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:DIGITS]
