"""Run the suite against implementation roots, each in its own pytest process, and read the outcomes.

``run_suite`` runs one root in a fresh interpreter (or a child of the fork server); ``run_suites``
runs many in parallel and pays the interpreter's start once: a fork server that has imported pytest,
Hypothesis and the harness forks one child per root, and only that child imports the root's ``corpus``.

The names are imported when first used: ``start_fork_server`` alone imports no pytest, so a command
starts the server before its own imports (verify does).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dedup_harness.core.runner.fork_server import start_fork_server, stop_fork_server
    from dedup_harness.core.runner.result import SuiteResult
    from dedup_harness.core.runner.run_many import run_suites
    from dedup_harness.core.runner.run_one import run_suite

_HOMES = {
    "start_fork_server": "fork_server",
    "stop_fork_server": "fork_server",
    "SuiteResult": "result",
    "run_suites": "run_many",
    "run_suite": "run_one",
}
__all__ = ["SuiteResult", "run_suite", "run_suites", "start_fork_server", "stop_fork_server"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
