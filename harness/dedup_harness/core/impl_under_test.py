"""The implementation under test: the pytest plugin that declares ``--impl ROOT``, and the one seam to reach it.

The suite's ``impl`` fixture returns ``config.stash[IMPL_KEY]`` when a plugin has put an object there
(the grader puts a proxy to an isolated worker); otherwise it imports ``corpus.dedup`` from the root
that ``--impl`` names (the reference root when it is not given). The object has the module's surface:
STATS_KEYS, paragraphs, paragraph_hash, bloom_rate, exact_dedup.

This module is a pytest plugin for one reason: an option must be known before pytest parses the
command line, and the suite's conftest is read too late for that when the suite runs from an
installed wheel (``pytest --pyargs dedup_harness._data.tests.suite --impl ROOT``, from any folder).
The distribution names it as a ``pytest11`` entry point, so pytest loads it by itself; it only adds
the option, so it changes nothing in another project's test run. Runs that switch plugin autoloading
off load it by name: whoever starts a suite run spells its arguments with ``impl_args``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

PLUGIN = __name__  # also the name of its pytest11 entry point, so that loading it twice loads it once
IMPL_OPTION = "--impl"
IMPL_DEST = "impl_root"
IMPL_KEY = pytest.StashKey[Any]()


def impl_args(root: Path | str) -> list[str]:
    """pytest's arguments that load this plugin and point the suite at the implementation root ``root``."""
    return ["-p", PLUGIN, f"{IMPL_OPTION}={root}"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("dedup-harness").addoption(
        IMPL_OPTION,
        dest=IMPL_DEST,
        default=None,
        metavar="ROOT",
        help="implementation root the dedup-harness suite runs against: a folder holding a corpus/ package "
        "(default: the reference)",
    )
