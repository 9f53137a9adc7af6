"""A pytest plugin that records each check's outcome from pytest's own report data.

Loaded with the arguments ``plugin_args`` spells (``-p`` this module, ``--outcomes-json FILE``). A
check's parametrized cases fold into one outcome: ``failed`` when a case failed an assertion,
``error`` when one crashed or failed its setup, ``timeout`` past ``--check-timeout``, ``passed``
otherwise; collection errors are listed apart. No output text is scraped: each case's record comes
from the exception objects, field by field (type and text, what the code under test ``raised``
behind it, and a failing verdict, ``judges.VerdictFailed``, as data).
"""

from __future__ import annotations

import json
import signal
from collections.abc import Generator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from dedup_harness.core import case_log, hidden_cases
from dedup_harness.core.judges.verdict import Verdict, VerdictFailed
from dedup_harness.core.outcome import PRECEDENCE, Outcome

__all__ = ["PRECEDENCE", "CheckTimeout", "Outcome"]

PLUGIN = __name__
TEXT_LIMIT = 4000  # characters of an exception's text, and of Hypothesis's notes, kept per case
VERDICT_LIMIT = 20_000  # characters of a verdict's expected and got, as JSON, kept per case (else cut)
OUTCOMES_OPTION = "--outcomes-json"
# Where a crash happened in the student's code ("dedup.py line 40, in _spool"), hung on the exception by
# whoever knows it: the grader's rebuilt errors (grade/worker/protocol.py keeps its own copy of the name, held
# to this one by a test) and check's plugin from the traceback.
SITE_ATTRIBUTE = "dedup_harness_site"
CHECK_TIMEOUT_OPTION = "--check-timeout"


def plugin_args(outcomes_file: Path, *, check_timeout: float) -> list[str]:
    """pytest's arguments that load this plugin, writing to ``outcomes_file``, with a time limit per case."""
    return ["-p", PLUGIN, f"{OUTCOMES_OPTION}={outcomes_file}", f"{CHECK_TIMEOUT_OPTION}={check_timeout}"]


class CheckTimeout(BaseException):
    """A case ran too long. A BaseException, so neither a check nor Hypothesis catches and replays it."""


@dataclass
class CaseRecord:
    nodeid: str
    outcome: Outcome
    error: str = ""  # the exception's type, as the check saw it ("" when it passed)
    message: str = ""  # the exception's own text: an assertion's message, or what crashed
    raised: str = ""  # the type the code under test raised behind it (a fault's ``raised``, else ``error``)
    verdict: dict[str, Any] | None = None  # a judge's failing verdict: differences, expected, got (see ``as_data``)
    case_id: str = ""  # pytest's id of the parametrized case ("" for a check of one case)
    input: dict[str, Any] = field(default_factory=dict)  # what a failed case tried last (``case_log``), if small
    seconds: float = 0.0  # how long the case's phase took (pytest's own measure): a timing field
    site: str = ""  # where in the student's code it crashed (SITE_ATTRIBUTE), when it did
    held_back: bool = False  # one of the cases a course holds back (core/hidden_cases.py)


def classify(excinfo: pytest.ExceptionInfo[BaseException] | None) -> Outcome:
    if excinfo is None:
        return Outcome.PASSED
    # A time limit enforced elsewhere (the grading worker's) says so with an ``outcome`` attribute.
    if excinfo.errisinstance(CheckTimeout) or getattr(excinfo.value, "outcome", None) == Outcome.TIMEOUT:
        return Outcome.TIMEOUT
    error = excinfo.value
    leaves = list(error.exceptions) if isinstance(error, BaseExceptionGroup) else [error]
    return Outcome.FAILED if all(is_assertion(e) for e in leaves) else Outcome.ERROR


def is_assertion(error: BaseException) -> bool:
    """An assertion failed: ``assert``, ``pytest.fail()``, or ``pytest.raises`` that saw nothing raised."""
    return isinstance(error, (AssertionError, pytest.fail.Exception))


def case_record(item: pytest.Item, call: pytest.CallInfo[None]) -> CaseRecord:
    outcome = classify(call.excinfo) if call.when == "call" else Outcome.ERROR
    spec = getattr(item, "callspec", None)
    found = CaseRecord(item.nodeid, outcome, seconds=round(call.duration, 3), case_id=spec.id if spec else "")
    found.held_back = hidden_cases.held_back(item)
    if call.excinfo is None:
        return found
    error = call.excinfo.value
    if isinstance(error, BaseExceptionGroup):  # Hypothesis found several distinct failures: the first stands
        error = error.exceptions[0]
    found.error, found.message = type(error).__name__, str(error)[:TEXT_LIMIT]
    found.raised = str(getattr(error, "raised", "") or type(error).__name__)
    found.verdict = as_data(error.verdict) if isinstance(error, VerdictFailed) else None
    found.site = crash_site(error)
    tried = case_log.recent()  # a Hypothesis check's last is its shrunk example, replayed
    found.input = kept(case_log.shown(tried[0])) if tried and call.when == "call" else {}
    return found


def kept(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` when JSON holds it within VERDICT_LIMIT characters, else nothing (a 200-document corpus)."""
    try:
        return value if len(json.dumps(value)) <= VERDICT_LIMIT else {}
    except (TypeError, ValueError):
        return {}


def as_data(verdict: Verdict) -> dict[str, Any]:
    """A failing verdict as the case keeps it: its differences, and what was expected and came back unless
    those run past VERDICT_LIMIT characters (a 200-document output), when ``cut`` says they were left out."""
    both = kept({"expected": verdict.expected, "got": verdict.got})
    return {"differences": list(verdict.differences), **(both or {"expected": {}, "got": {}, "cut": True})}


def crash_site(error: BaseException) -> str:
    """Where ``error`` crashed in the student's code, as its finder said it (cut short); "" when none said."""
    site = getattr(error, SITE_ATTRIBUTE, "")
    return site[:200] if isinstance(site, str) else ""


@dataclass(eq=False)  # pytest keeps plugins in sets: identity, not value, makes one
class Recorder:
    """The plugin object: collects case records and writes them when the session ends."""

    path: Path
    check_timeout: float
    cases: dict[str, list[CaseRecord]] = field(default_factory=dict)
    collection_errors: list[str] = field(default_factory=list)
    exitstatus: int | None = None  # set as the session ends

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, Any]:
        if self.check_timeout <= 0:
            return (yield)
        previous = signal.signal(signal.SIGALRM, _raise_timeout)
        signal.setitimer(signal.ITIMER_REAL, self.check_timeout)
        try:
            return (yield)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        skipped = call.excinfo is not None and call.excinfo.errisinstance(pytest.skip.Exception)
        if isinstance(item, pytest.Function) and not skipped and (call.when == "call" or call.excinfo is not None):
            record = case_record(item, call)
            self.cases.setdefault(item.originalname, []).append(record)
        return report

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors.append(f"{report.nodeid}: {report.longreprtext[-4000:]}")

    def pytest_sessionfinish(self, exitstatus: int) -> None:
        self.exitstatus = int(exitstatus)

    def pytest_unconfigure(self) -> None:
        """Written after every plugin's session end: in grade, once the worker is stopped and what it wrote removed,
        so a submission that fills the temp folder's disk as the checks end cannot leave this file empty."""
        if self.exitstatus is None:
            return
        data = {
            "exitstatus": self.exitstatus,
            "collection_errors": self.collection_errors,
            "checks": {name: [asdict(case) for case in cases] for name, cases in self.cases.items()},
        }
        self.path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def _raise_timeout(signum: int, frame: FrameType | None) -> None:
    raise CheckTimeout("the check ran past its time limit")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dedup-harness outcomes")
    group.addoption(OUTCOMES_OPTION, dest="outcomes_json", metavar="FILE", help="write per-check outcomes to FILE")
    group.addoption(
        CHECK_TIMEOUT_OPTION,
        dest="check_timeout",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="time limit per case",
    )


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("outcomes_json")
    if path:
        config.pluginmanager.register(Recorder(Path(path), config.getoption("check_timeout")), "dedup-harness-recorder")
