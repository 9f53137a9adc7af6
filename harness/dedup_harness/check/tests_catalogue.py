"""The chapter's catalogue of checks (``dedup-harness tests``): each check's number, name, kind, what it asserts and
why it matters downstream; and one check in full, with its cases and the pitfalls it catches.

docs/tests.md says what each shows. The words are the registry's (``core/checks.py``), the cases what
pytest collects of the installed suite, the pitfalls the mutant catalogue's words (``mutants/``): no
mutant's code, which the student kit does not hold.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from dedup_harness.core.catalogue import Mutant, load_catalogue
from dedup_harness.core.checks import REGISTRY, Check
from dedup_harness.core.impl_under_test import impl_args
from dedup_harness.core.kill_matrix import load_kill_sets
from dedup_harness.core.paths import IMPL_ROOT, SUITE_DIR


@dataclass(frozen=True)
class CollectedCases:
    """What one check runs on, as pytest collects it."""

    about: str  # the test's docstring
    ids: tuple[str, ...] = ()  # its parametrized cases' ids (none for a single case)
    drawn: int = 0  # the examples a Hypothesis property draws (0: not a property)
    pinned: int = 0  # the inputs a property pins with @example


@dataclass(frozen=True)
class Pitfalls:
    """The mutants a check catches: those whose catalogue entry names it, then the others that fail it too."""

    named: tuple[Mutant, ...]
    also: tuple[Mutant, ...]


class _Collector:
    """A pytest plugin that keeps the suite's collected test functions, and collection errors."""

    def __init__(self) -> None:
        self.items: list[pytest.Function] = []
        self.errors: list[str] = []

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.items = [item for item in items if isinstance(item, pytest.Function)]

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.errors.append(f"{report.nodeid}: {report.longreprtext[-600:]}")


class CollectionError(RuntimeError):
    """The suite could not be collected: the message says where."""


def collected_cases() -> dict[str, CollectedCases]:
    """Every check's cases, by check name, as pytest collects the installed suite (against the course's modules)."""
    collector = _Collector()
    args = [str(SUITE_DIR), *impl_args(IMPL_ROOT), "-c", os.devnull, f"--rootdir={SUITE_DIR.parent}"]
    args += [f"--confcutdir={SUITE_DIR.parent}", "-p", "no:cacheprovider", "--collect-only", "-q"]
    with _quiet(), _plugins_named_only():
        pytest.main(args, plugins=[collector])
    if collector.errors:
        raise CollectionError("the suite could not be collected: " + "; ".join(collector.errors))
    by_check: dict[str, list[pytest.Function]] = {}
    for item in collector.items:
        by_check.setdefault(item.originalname, []).append(item)
    return {name: _cases(items) for name, items in by_check.items()}


def _cases(items: list[pytest.Function]) -> CollectedCases:
    test: Any = items[0].obj
    settings = getattr(test, "_hypothesis_internal_use_settings", None)  # Hypothesis keeps @settings here
    drawn = int(getattr(settings, "max_examples", 0)) if getattr(test, "is_hypothesis_test", False) else 0
    pinned = len(getattr(test, "hypothesis_explicit_examples", ()))
    ids = tuple(item.callspec.id for item in items if hasattr(item, "callspec"))
    return CollectedCases(" ".join((test.__doc__ or "").split()), ids, drawn, pinned)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """pytest's collection report stays off the terminal: the catalogue says what it found."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


@contextlib.contextmanager
def _plugins_named_only() -> Iterator[None]:
    """No plugin but those named: one installed beside pytest must not change what is collected."""
    saved = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = saved


def pitfalls(check: Check) -> Pitfalls:
    """The catalogue's mutants that name ``check``, and those whose measured kill set holds it as well."""
    mutants = load_catalogue(diffs=False)
    kill_sets = load_kill_sets()
    named = tuple(m for m in mutants if check.name in m.caught_by)
    also = tuple(m for m in mutants if m not in named and check.name in kill_sets.get(m.id, frozenset()))
    return Pitfalls(named, also)


def by_number(number: int) -> Check:
    """The check numbered ``number``; LookupError naming the numbers there are."""
    for check in REGISTRY:
        if check.number == number:
            return check
    raise LookupError(f"no check {number}: the checks are numbered 1 to {len(REGISTRY)}")


def describe_cases(cases: CollectedCases) -> list[str]:
    """The cases in words, a line each."""
    lines = []
    if cases.drawn:
        pinned = f", and {cases.pinned} inputs pinned with @example" if cases.pinned else ""
        same = "the same ones in every check and grade"
        lines.append(f"a property: Hypothesis draws {cases.drawn} examples ({same}){pinned}")
    if cases.ids:
        lines.append(f"{len(cases.ids)} cases:")
        lines += [f"  [{case}]" for case in cases.ids]
    elif not cases.drawn:
        lines.append("one case")
    return lines
