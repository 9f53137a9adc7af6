"""Run the suite against implementation roots, each in its own pytest process, and read the outcomes.

``run_suite`` runs one root in a fresh interpreter (or a child of the fork server); ``run_suites``
runs many in parallel and pays the interpreter's start once: a fork server that has imported pytest,
Hypothesis and the harness forks one child per root, and only that child imports the root's ``corpus``.
"""

from dedup_harness.core.runner.fork_server import start_fork_server, stop_fork_server
from dedup_harness.core.runner.result import SuiteResult
from dedup_harness.core.runner.run_many import run_suites
from dedup_harness.core.runner.run_one import run_suite

__all__ = ["SuiteResult", "run_suite", "run_suites", "start_fork_server", "stop_fork_server"]
