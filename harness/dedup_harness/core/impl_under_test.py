"""The implementation under test: the option that names its root, and the one seam to reach it.

The suite's ``impl`` fixture returns ``config.stash[IMPL_KEY]`` when a plugin has put an object there
(the grader puts a proxy to an isolated worker); otherwise it imports ``corpus.dedup`` from the root
that ``--impl`` names. The object has the module's surface: STATS_KEYS, paragraphs, paragraph_hash,
bloom_rate, exact_dedup. The suite's conftest declares the option; whoever starts a suite run
spells it with ``impl_args``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

IMPL_OPTION = "--impl"
IMPL_DEST = "impl_root"
IMPL_KEY = pytest.StashKey[Any]()


def impl_args(root: Path | str) -> list[str]:
    """pytest's arguments that point the suite at the implementation root ``root``."""
    return [f"{IMPL_OPTION}={root}"]
