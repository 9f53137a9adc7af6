"""The implementation under test: the pytest plugin that declares ``--impl``, resolves it and names it, and the
stash key through which another plugin puts its own object in the module's place.

The suite's ``impl`` fixture returns ``config.stash[IMPL_KEY]`` when a plugin put an object there (the grader's
proxy); otherwise it imports ``corpus.dedup`` from the root ``--impl`` names (``core/impl_roots.py``; the reference
by default; a student's own doc, hashing and bloom beside a dedup.py only in a kit built ``--own-deps``, as check).
It is a plugin because an installed suite (``pytest --pyargs dedup_harness._data.tests.suite --impl X``) reads its
conftest only while pytest collects: too late for the run's header and a one-line usage error. A ``pytest11`` entry
point loads it; in another project's run it only adds the option. Runs with plugin autoloading off load it by name:
a suite run's starter spells its arguments with ``impl_args``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core import scratch_dirs
from dedup_harness.core.impl_roots import OWN_MODULES, TAKES, NotAnImplementation, UnderTest, under_test
from dedup_harness.core.paths import DATA_ROOT, INSTALLED, OWN_DEPS, TESTS_DIR

PLUGIN = __name__  # also the name of its pytest11 entry point, so that loading it twice loads it once
IMPL_OPTION = "--impl"
IMPL_DEST = "impl_root"
OWN_OPTION = "--own-module"  # a module of the root that is its author's own (the root grade or check built)
IMPL_KEY = pytest.StashKey[Any]()
UNDER_TEST_KEY = pytest.StashKey[UnderTest]()
_OURS_KEY = pytest.StashKey[bool]()
INSTALLED_TESTS = "dedup_harness"  # the package --pyargs names to reach the installed tests (_data/tests/...)
# Where Hypothesis's pytest plugin keeps a failing property's examples until it writes them as a patch.
HYPOTHESIS_FAILING_EXAMPLES = "_hypothesis_failing_examples"


def impl_args(root: Path | str) -> list[str]:
    """pytest's arguments that load this plugin and point the suite at the implementation root ``root``."""
    return ["-p", PLUGIN, f"{IMPL_OPTION}={root}"]


def own_args(own: Sequence[str]) -> list[str]:
    """pytest's arguments that say which modules of the root under test (of ``impl_roots.OWN_MODULES``) are its
    author's own: a submission's root that grade or check built with the student's modules."""
    return [f"{OWN_OPTION}={name}" for name in own]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("dedup-harness").addoption(
        IMPL_OPTION,
        dest=IMPL_DEST,
        default=None,
        metavar="PATH",
        help=f"what the dedup-harness suite runs against: {TAKES} (default: the reference)",
    )
    parser.getgroup("dedup-harness").addoption(
        OWN_OPTION,
        dest="own_modules",
        action="append",
        default=[],
        choices=OWN_MODULES,
        help="a module of the implementation root that is its author's own, not the course's (repeatable)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """Before any conftest: a run of this project's tests keeps pytest's cache (``.pytest_cache/``) off."""
    known = early_config.known_args_namespace
    named = known.file_or_dir or early_config.getini("testpaths")
    base = early_config.invocation_params.dir if known.file_or_dir else early_config.rootpath
    if getattr(known, IMPL_DEST, None) is not None or names_our_tests(named, pyargs=known.pyargs, base=base):
        early_config.stash[_OURS_KEY] = True
        early_config.pluginmanager.consider_pluginarg("no:cacheprovider")


def names_our_tests(args: Sequence[str], *, pyargs: bool, base: Path) -> bool:
    """Does one of pytest's arguments name this project's tests (a path into them, or their installed package)?"""
    for arg in args:
        where = str(arg).split("::")[0]
        if pyargs and where.split(".")[0] == INSTALLED_TESTS:
            return True
        path = (base / where).resolve()
        if path in (TESTS_DIR, DATA_ROOT) or TESTS_DIR in path.parents:
            return True
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if config.stash.get(_OURS_KEY, False) or config.getoption(IMPL_DEST) is not None:
        start(config)


def start(config: pytest.Config) -> UnderTest:
    """Set up a run of this project's tests, once: what is under test, the Hypothesis profile, where Hypothesis writes.

    A path ``--impl`` cannot take is a usage error: one line, exit status 4, before anything is collected.
    """
    if UNDER_TEST_KEY in config.stash:
        return config.stash[UNDER_TEST_KEY]
    scratch = _Scratch(config)
    try:
        found = under_test(
            config.getoption(IMPL_DEST),
            scratch.folder,
            own_deps=OWN_DEPS,  # the course's one decision, as check's: the kit's mark
            own=tuple(config.getoption("own_modules")),
        )
    except NotAnImplementation as exc:
        raise pytest.UsageError(f"{IMPL_OPTION} {exc}") from None
    config.stash[UNDER_TEST_KEY] = found
    _hypothesis_setup(config, scratch)
    return found


def pytest_report_header(config: pytest.Config) -> list[str]:
    found = config.stash.get(UNDER_TEST_KEY, None)
    if found is None:
        return []
    from hypothesis import settings

    return [f"dedup-harness: under test {found.describe()}; hypothesis profile {settings.get_current_profile_name()}"]


class _Scratch:
    """This run's scratch folder, made when first asked for and removed when the run ends."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.path: Path | None = None

    def folder(self) -> Path:
        if self.path is None:
            self.path = Path(tempfile.mkdtemp(prefix=scratch_dirs.prefix("suite")))
            self.config.add_cleanup(lambda: shutil.rmtree(str(self.path), ignore_errors=True))
        return self.path


def _hypothesis_setup(config: pytest.Config, scratch: _Scratch) -> None:
    """The profile the environment names, and Hypothesis's files kept out of the working folder.

    Hypothesis writes its example database, the Unicode tables and constants it caches, and patches
    under ``./.hypothesis/`` of whatever folder the run started in. A caller that set
    ``HYPOTHESIS_STORAGE_DIRECTORY`` (the command line points it at its own scratch) has chosen; in a
    checkout it is the project's own ``.hypothesis/`` (ignored by git; a developer's failing examples
    are replayed from it); from an installed suite it is this run's scratch, and the patch Hypothesis
    would offer for a failing property, an edit to the installed files, is not offered.
    """
    from hypothesis.configuration import set_hypothesis_home_dir

    from dedup_harness.core import profiles

    profiles.load_from_environment()
    if os.environ.get(scratch_dirs.HYPOTHESIS_HOME_ENV):
        return
    if not INSTALLED:
        set_hypothesis_home_dir(DATA_ROOT / ".hypothesis")
        return
    set_hypothesis_home_dir(scratch.folder() / "hypothesis")
    config.pluginmanager.register(NoPatchOffers(), "dedup-harness-no-patch-offers")


class NoPatchOffers:
    """Drops a failing property's examples before Hypothesis's plugin writes them as a patch (at teardown).

    The failing example itself is still printed with the failure; only the ``git apply`` offer goes.
    """

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        if call.when == "teardown" and hasattr(item, HYPOTHESIS_FAILING_EXAMPLES):
            delattr(item, HYPOTHESIS_FAILING_EXAMPLES)
        return (yield)
