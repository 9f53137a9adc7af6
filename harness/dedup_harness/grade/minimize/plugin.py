"""A pytest plugin that shrinks each failed check's input to the smallest case that still fails it.

Loaded with the arguments ``plugin_args`` spells. It keeps the input each check recorded
(``core.case_log``) when the check fails by an assertion; as the session ends, before the grader's
worker is shut down, it shrinks every such input within a time budget and asks which mutants behave like
the submission on them (``behaviour.py``); once the worker is stopped (as pytest unconfigures) it writes
both to FILE (``{"cases": {check: MinimalCase}, "matches": {mutant: [check, ...]}}``). Each smaller input is
judged by the check's own judge (``core/judges``) against the suite's implementation under test.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core import case_log
from dedup_harness.core.checks import BY_NAME, CHECKS
from dedup_harness.core.impl_under_test import IMPL_KEY
from dedup_harness.core.judges import JUDGES, Subject, VerdictFailed
from dedup_harness.core.judges.trusted_stage import TrustedStage
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.outcome_recorder import classify
from dedup_harness.core.scratch_dirs import Scratch
from dedup_harness.core.write_watch import WRITES_KEY, TempFolder, WriteWatch
from dedup_harness.grade.minimize.behaviour import FailedCase, matched_checks
from dedup_harness.grade.minimize.case import MinimalCase, minimal_case, size
from dedup_harness.grade.minimize.ddmin import Tries
from dedup_harness.grade.minimize.shrink import shrink

PLUGIN = __name__
OUTPUT_OPTION = "--minimal-cases-json"
SHRINKING = "(while shrinking a failing case)"  # the proxy's label for what happens meanwhile
# Budgets in tries, not seconds: the same submission must get the same report, byte for byte, however
# busy the machine is. A try is a run of the stage on a small input; a batch of hundreds affords this.
TRIES_PER_CHECK = 150
TRIES_IN_ALL = 500
BACKSTOP_SECONDS = 30.0  # against a submission slow on every try; a report cut by it says so


def plugin_args(output: Path) -> list[str]:
    return ["-p", PLUGIN, f"{OUTPUT_OPTION}={output}"]


@dataclass(eq=False)  # pytest keeps plugins in sets: identity makes one
class Minimizer:
    output: Path
    failing: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    differences: dict[str, list[str]] = field(default_factory=dict)  # what each failed check's verdict said
    written: dict[str, Any] | None = None  # the cases and their matches, once the session has ended

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        case_log.forget()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        name = getattr(item, "originalname", item.name)
        if call.when == "call" and name not in self.failing and classify(call.excinfo) is Outcome.FAILED:
            self.failing[name] = case_log.recent()
            assert call.excinfo is not None
            failed = call.excinfo.value
            self.differences[name] = failed.verdict.differences if isinstance(failed, VerdictFailed) else [str(failed)]
        return report

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        impl = session.config.stash.get(IMPL_KEY, None)
        scratch_in = session.config.option.basetemp
        writes = session.config.stash.get(WRITES_KEY, TempFolder)
        cases = minimize_all(impl, self.failing, scratch_in=scratch_in, writes=writes) if impl else {}
        for name in self.failing:
            if name in BY_NAME and not BY_NAME[name].shrinks and self.failing[name]:
                cases[name] = as_recorded(self.failing[name][0], self.differences[name])
        evidence = [
            FailedCase(name, case.raw_input if BY_NAME[name].shrinks else None, case.got, case.expected)
            for name, case in cases.items()
        ]
        matches: dict[str, list[str]] = {}
        if evidence:
            # The mutants' roots are the grader's own files: not on the submission's disk, which it may
            # have filled (a full disk there is its verdict, never the diagnosis's harness error).
            with _labelled(impl, SHRINKING), Scratch("behaviour") as own:
                matches = matched_checks(evidence, Path(own))
        self.written = {"cases": {k: c.as_dict() for k, c in cases.items()}, "matches": matches}

    def pytest_unconfigure(self) -> None:
        """Written once the worker is stopped (the grading plugin stops it as the session ends, after this plugin
        shrank its cases): a submission that fills the temp folder's disk cannot leave this file empty."""
        if self.written is not None:
            # ASCII with escapes: a lone surrogate in a document or a stats value the submission returned cannot
            # stop the file being written (half a file made the whole grade a harness error).
            self.output.write_text(json.dumps(self.written), "utf-8")


def minimize_all(
    impl: Any,
    failing: dict[str, list[dict[str, Any]]],
    *,
    scratch_in: str | None,
    writes: Callable[[Path], WriteWatch] = TempFolder,
) -> dict[str, MinimalCase]:
    """A minimal case for each failed check that recorded an input, in the suite's order, within the budgets
    (``writes``: where the stage may write besides its spool_dir, watched as the checks watched it)."""
    subject = Subject(impl, _scratch("shrink-", scratch_in), writes=writes)
    deadline = time.monotonic() + BACKSTOP_SECONDS
    cases: dict[str, MinimalCase] = {}
    names = [c for c in CHECKS if c in failing and failing[c] and BY_NAME[c].shrinks]
    left = TRIES_IN_ALL
    found: list[dict[str, Any]] = []  # the minimal inputs so far: one may fail the next check as well
    for n, name in enumerate(names):
        # An equal share of what is left, so a check that needs many tries cannot starve the later ones.
        tries = min(TRIES_PER_CHECK, left // (len(names) - n))
        budget = Tries(tries, max(0.0, (deadline - time.monotonic()) / (len(names) - n)))
        starts = failing[name] + [inputs for inputs in found if inputs.keys() == failing[name][0].keys()]
        case = minimize(subject, name, starts, budget)
        left -= budget.used
        if case is not None:
            cases[name] = case
            found.append(case.raw_input)
    return cases


def minimize(subject: Subject, name: str, recorded: list[dict[str, Any]], budget: Tries) -> MinimalCase | None:
    """The smallest input that still fails check ``name`` (and that the reference passes), starting from
    the smallest recorded input that fails when judged again; None when none does."""
    judge = JUDGES[BY_NAME[name].judged_as]
    statistical = BY_NAME[name].judged_as == "budget"
    trusted_subject = Subject(TrustedStage(), subject.scratch)  # the course's own filter, in the kit too
    stops: list[str] = []

    def fails(candidate: dict[str, Any]) -> bool:
        if stops:
            return False
        try:
            if not judge(subject, candidate).failing:
                return False
            # Where the expected answer is not the oracle's but a promise (the false-positive budget),
            # an input the course's own filter fails too would blame the submission for luck.
            return not (statistical and judge(trusted_subject, candidate).failing)
        except Exception:
            return False  # a crash on a smaller input is another failure than the one this check saw
        except KeyboardInterrupt:
            raise
        except BaseException as fault:  # the worker died or ran out of time, or the code called sys.exit
            stops.append(f"shrinking stopped: {fault}")
            return False

    with _labelled(subject.impl, SHRINKING):
        inputs = next((candidate for candidate in sorted(recorded, key=size) if fails(candidate)), None)
        if inputs is None:
            return None
        smallest = shrink(inputs, fails, budget, least_docs=1 if BY_NAME[name].judged_as == "spool" else 0)
        try:
            verdict = judge(subject, smallest)
        except KeyboardInterrupt:
            raise
        except BaseException:
            return None
    note = stops[0] if stops else ""
    if not note and budget.timed_out:
        note = f"shrinking stopped after {BACKSTOP_SECONDS:g} s, every try being slow: a smaller failing case may exist"
    elif not note and budget.exhausted:
        note = "shrinking stopped at its budget of tries: a smaller failing case may exist"
    own = recorded[0]  # what the check itself last tried: the size the report compares with
    return minimal_case(smallest, verdict, origin=own, tries=budget.used, note=note)


def _scratch(prefix: str, parent: str | None) -> Path:
    """A fresh folder under pytest's base temporary folder (the grader's shared folder, where both sides see it)."""
    if parent is not None:
        Path(parent).mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=parent))


def as_recorded(inputs: dict[str, Any], differences: list[str]) -> MinimalCase:
    """The case of a check whose input cannot be made smaller and still tell anything: as it ran."""
    note = "this check's input cannot be made smaller: it needs corpora large enough to measure"
    return MinimalCase(
        input=inputs, expected={}, got={}, differences=differences, documents=0, characters=0, shrunk=False, note=note
    )


@contextlib.contextmanager
def _labelled(impl: Any, label: str) -> Iterator[None]:
    """What the grader's proxy notes of the worker meanwhile is filed under ``label``, not a check."""
    saved = getattr(impl, "current_check", None)
    if saved is not None:
        impl.current_check = label
    try:
        yield
    finally:
        if saved is not None:
            impl.current_check = saved


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dedup-harness minimal cases")
    group.addoption(
        OUTPUT_OPTION, dest="minimal_cases_json", metavar="FILE", help="write minimal failing cases to FILE"
    )


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("minimal_cases_json")
    if path:
        config.pluginmanager.register(Minimizer(Path(path)), "dedup-harness-minimizer")
