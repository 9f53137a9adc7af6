"""A pytest plugin that runs the checks against an untrusted submission through the isolated worker.

Loaded with the arguments ``plugin_args`` spells (``-p`` this module, ``--submission ROOT``, a scratch
root from ``grade.submission.prepare``). Every check talks to the worker through the
``SubmissionProxy`` in ``config.stash[IMPL_KEY]``; pytest's temporary folders move into the sandbox's
shared folder, so a check's ``spool_dir`` is visible to both sides. As the session ends it writes the
sidecar (``--grading-json FILE``, ``Grading.pytest_sessionfinish``): the protections in force, the
problems found before the checks, the worker's events and refusals by check, the submission's output,
and figures that change from run to run and stay out of reports (the worker's starts and seconds, and
``grader.peak_bytes``, this trusted process's own peak memory: what a submission's output made the
grader hold at worst).

Isolation comes from --worker-setup (what the grade command detected and checked, as JSON), or else
is detected here from --tier (``auto`` or a tier by name; one that cannot run here is an error) and
--worker-python.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import math
import os
from collections.abc import Generator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core.impl_under_test import IMPL_KEY
from dedup_harness.core.memory_gauge import MEMORY_GAUGE_KEY
from dedup_harness.core.procfs import memory_bytes
from dedup_harness.core.write_watch import WRITES_KEY
from dedup_harness.grade import rules
from dedup_harness.grade.client.calls import COLLECT_AFTER
from dedup_harness.grade.client.faults import WorkerFault
from dedup_harness.grade.client.memory import WorkerMemory
from dedup_harness.grade.client.proxy import SubmissionProxy
from dedup_harness.grade.sandbox import Limits, Sandbox
from dedup_harness.grade.sandbox.tiers import AUTO, Tier, WorkerSetup, worker_setup
from dedup_harness.grade.signature import static_problems
from dedup_harness.grade.submission import Problem, compile_problems, import_problems, source_of

PLUGIN = __name__
SUBMISSION_OPTION = "--submission"
SIDECAR_OPTION = "--grading-json"
TIER_OPTION = "--tier"
PYTHON_OPTION = "--worker-python"
REPORT_TEXT = 8000  # characters of a failed case's text pytest keeps (the grade shows at most 4,000 of it)
SETUP_OPTION = "--worker-setup"


def plugin_args(root: Path, sidecar: Path | None, *options: str) -> list[str]:
    """pytest's arguments that grade the submission root ``root``, the sidecar going to ``sidecar``."""
    written = [f"{SIDECAR_OPTION}={sidecar}"] if sidecar is not None else []
    return ["-p", PLUGIN, f"{SUBMISSION_OPTION}={root}", *written, *options]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dedup-harness grading")
    group.addoption(
        SUBMISSION_OPTION, dest="submission", metavar="ROOT", help="scratch root of the submission to grade"
    )
    group.addoption(SIDECAR_OPTION, dest="grading_json", metavar="FILE", help="write the grading sidecar to FILE")
    group.addoption("--call-timeout", dest="call_timeout", type=float, default=rules.value("call_seconds"), metavar="S")
    group.addoption(
        "--submission-timeout",
        dest="submission_timeout",
        type=float,
        default=rules.value("submission_seconds"),
        metavar="S",
    )
    group.addoption("--memory-mb", dest="memory_mb", type=int, default=rules.value("memory_mb"), metavar="MB")
    group.addoption("--disk-mb", dest="disk_mb", type=int, default=rules.value("disk_mb"), metavar="MB")
    group.addoption(TIER_OPTION, dest="tier", default=AUTO, choices=[AUTO, *Tier], help="the isolation tier")
    group.addoption(PYTHON_OPTION, dest="worker_python", metavar="PATH", help="the worker's interpreter (checked)")
    group.addoption(SETUP_OPTION, dest="worker_setup", metavar="JSON", help="the detected setup (grade passes it)")


def setup_args(setup: WorkerSetup | None) -> list[str]:
    """The plugin's arguments that run every worker in ``setup`` (detected and checked by the grade command);
    none for None, and each run detects for itself."""
    return [] if setup is None else [f"{SETUP_OPTION}={setup.as_json()}"]


def budget_args(seconds: float) -> list[str]:
    """The plugin's arguments that give the submission ``seconds`` of its worker's time."""
    return [f"--submission-timeout={seconds!r}"]


def _setup(config: pytest.Config) -> WorkerSetup:
    given = config.getoption("worker_setup")
    if given:  # detected and checked by the grade command, passed-over tiers and all: no second detection
        return WorkerSetup.from_json(given)
    return worker_setup(config.getoption("tier"), config.getoption("worker_python"))


def _doc_type() -> type:
    doc: type = importlib.import_module("corpus.doc").Doc  # the trusted reference's Doc (from --impl)
    return doc


@dataclass(eq=False)  # pytest keeps plugins in sets: identity makes one
class Grading:
    proxy: SubmissionProxy
    sandbox: Sandbox
    output_path: Path | None
    static: list[Problem]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, Any, Any]:
        self.proxy.current_check = getattr(item, "originalname", item.name)
        try:
            return (yield)
        finally:
            # A failed check's exception holds its frames, and they what the check got: garbage in a
            # cycle, freed only by the next full collection unless collected now.
            if self.proxy.budget.check_bytes > COLLECT_AFTER:
                gc.collect()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        """A failed case's text, as pytest keeps it to the end of the session, cut to REPORT_TEXT characters.

        A check's message may show what the submission returned (megabytes, at worst): kept for every
        failed case, that would grow the grader without end. The grade reads the outcome recorder's
        text (which takes it from the exception), never this one.
        """
        report: pytest.TestReport = yield
        if report.longrepr is not None and report.failed:
            text = report.longreprtext
            if len(text) > REPORT_TEXT:
                cut = len(text) - REPORT_TEXT
                report.longrepr = f"{text[:REPORT_TEXT]}\n... ({cut} more characters cut by the grader)"
        return report

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        self.proxy.shutdown()
        data = {
            "protections": self.sandbox.protections.as_dict(),
            "static": [asdict(p) for p in self.static],
            "events": [asdict(e) for e in self.proxy.events],
            "refused": self.proxy.log.refused(),
            "student_output": self.sandbox.output(),
            "worker": {
                "uid": self.sandbox.uid if self.sandbox.uid is not None else os.getuid(),
                "starts": self.proxy.worker.incarnation,
                "start_seconds": [round(s, 4) for s in self.proxy.worker.start_seconds],
                "used_seconds": round(self.proxy.budget.used_seconds, 3),
                "received_bytes": self.proxy.budget.received_bytes,
            },
            "grader": {"peak_bytes": memory_bytes("self", "VmHWM")},
        }
        self.sandbox.close()
        if self.output_path is not None:
            # ASCII with escapes: a lone surrogate the submission sent cannot stop the file being written.
            self.output_path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def start_problems(proxy: SubmissionProxy, root: Path) -> list[Problem]:
    """Compile, check what it imports, import in the worker, and compare names and signatures with the stub."""
    source = source_of(root)
    problems = compile_problems(source)
    if problems:
        proxy.broken = f"the submission does not compile: {problems[0].message}"
        return problems
    packages = proxy.sandbox.setup.packages
    problems = import_problems(source, packages.modules if packages else ())
    if problems:  # refused before any of it runs, in every tier alike
        proxy.broken = problems[0].message
        return problems
    with contextlib.suppress(WorkerFault):  # a broken import is recorded on the proxy
        proxy.start()  # the import happens in the worker
    if proxy.import_error is not None or (proxy.broken and proxy.surface is None):
        raised = f"importing it raised {proxy.broken_by}" if proxy.broken_by else "it could not be imported"
        return [Problem("import", proxy.broken or "the submission could not be imported", raised)]
    return static_problems(proxy.surface or {})


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    root = config.getoption("submission")
    if not root:
        return
    budget = config.getoption("submission_timeout")
    limits = Limits(
        call_seconds=config.getoption("call_timeout"),
        submission_seconds=budget,
        cpu_seconds=math.ceil(budget) + 5,  # a worker's CPU time never outlasts the submission's wall time
        memory_bytes=config.getoption("memory_mb") << 20,
        disk_bytes=config.getoption("disk_mb") << 20,
    )
    # This process grades this one submission: its session may be a tmpfs in a namespace of its own.
    sandbox = Sandbox(Path(root), limits, _setup(config), own_namespace=True)
    # The checks' tmp_path must be reachable from inside the sandbox, whatever the runner chose.
    config.option.basetemp = str(sandbox.shared / "pytest")
    proxy = SubmissionProxy(sandbox, doc_type=_doc_type)
    config.stash[IMPL_KEY] = proxy
    config.stash[MEMORY_GAUGE_KEY] = lambda: WorkerMemory(proxy)  # the worker's memory, read from outside
    config.stash[WRITES_KEY] = lambda scratch: sandbox.writes()  # everywhere the worker may write, from outside
    output = config.getoption("grading_json")
    grading = Grading(proxy, sandbox, Path(output) if output else None, [])
    config.pluginmanager.register(grading, "dedup-harness-grading")
    grading.static = start_problems(proxy, Path(root))
