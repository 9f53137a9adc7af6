"""What every tier's command line is built from: one worker's session, user and command, as data.

Each tier's row in ``tiers.TIERS`` names a function from a ``Launch`` to the full command line:
``bwrap.command``, ``unshare.command``, or ``direct`` (the worker's own command after the drop to its
user) for the tiers without namespaces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dedup_harness.core.paths import DATA_ROOT, PACKAGE_DIR


@dataclass(frozen=True)
class Launch:
    """One worker's start, whatever the tier."""

    worker: list[str]  # the interpreter and the worker's arguments
    as_worker: list[str]  # setpriv down to the worker's uid (empty: it runs as the grader's user)
    session: Path
    home: Path
    interpreter_prefix: Path  # the installation the interpreter runs from
    env: dict[str, str]
    temp_bytes: int  # the size of each small tmpfs a namespace puts over a public temp folder
    uid: int | None = None  # the worker's uid (None: the grader's own)
    user_namespace: bool = False  # unshare goes through a user namespace
    own_disk: bool = False  # the session is a tmpfs of its own (else bubblewrap covers the home with one)
    hidden: list[Path] = field(default_factory=list)  # the harness's folders
    packages: Path | None = None  # the allowed packages' copy (``packages``), shown read-only
    passed_fds: tuple[int, ...] = ()  # descriptors the worker inherits (its pipes to the grader)


def direct(launch: Launch) -> list[str]:
    """The tiers without namespaces: the worker confines itself once started."""
    return [*launch.as_worker, *launch.worker]


def harness_folders(session: Path) -> list[Path]:
    """The harness's own folders (reference, oracle, fixtures, tests), unless the session lies inside one."""
    folders = [path for path in {DATA_ROOT.resolve(), PACKAGE_DIR.resolve()} if not session.is_relative_to(path)]
    # One mount over the outer folder covers the inner one (whose mount point it hides).
    return sorted(
        path for path in folders if not any(path != other and path.is_relative_to(other) for other in folders)
    )
