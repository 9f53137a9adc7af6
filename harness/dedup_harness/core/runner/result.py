"""What one suite run came to: every check's outcome, read from the outcome recorder's file."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import PRECEDENCE, Outcome


@dataclass
class SuiteResult:
    """The outcome of every check for one implementation root."""

    root: Path
    outcomes: dict[str, Outcome]
    cases: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    collection_errors: list[str] = field(default_factory=list)
    exitstatus: int | None = None
    seconds: float = 0.0
    output_tail: str = ""  # the last lines pytest printed, for a person reading a broken run
    cpu_seconds: float | None = None  # the run's own CPU time, when the runner measured it (run_suites does)

    def failed(self) -> frozenset[str]:
        return frozenset(name for name, outcome in self.outcomes.items() if outcome is Outcome.FAILED)

    def check_seconds(self, check: str) -> float:
        """How long a check's cases ran, as the outcome recorder measured them (0 when none was recorded)."""
        return round(sum(float(case.get("seconds", 0.0)) for case in self.cases.get(check, [])), 3)


def said(case: Mapping[str, Any]) -> str:
    """What a case that did not pass said, as one text for a person: the exception's type, then its words."""
    error, message = str(case.get("error", "")), str(case.get("message", ""))
    return f"{error}: {message}" if error and message else error or message


def fold(cases: Sequence[Mapping[str, Any]]) -> Outcome:
    """One outcome for a check from the outcomes of its cases."""
    seen = {Outcome(case["outcome"]) for case in cases}
    return next((outcome for outcome in PRECEDENCE if outcome in seen), Outcome.ERROR)


def read_result(
    root: Path,
    outcomes_file: Path,
    *,
    timed_out: bool,
    output: str,
    seconds: float,
    checks: Sequence[str] = CHECKS,
) -> SuiteResult:
    """The SuiteResult from the recorder's JSON file (absent when the run died or was killed)."""
    data = json.loads(outcomes_file.read_text(encoding="utf-8")) if outcomes_file.exists() else {}
    cases: dict[str, list[dict[str, Any]]] = data.get("checks", {})
    missing = Outcome.TIMEOUT if timed_out else Outcome.ERROR
    return SuiteResult(
        root=root,
        outcomes={name: fold(cases[name]) if name in cases else missing for name in checks},
        cases=cases,
        collection_errors=data.get("collection_errors", []),
        exitstatus=data.get("exitstatus"),
        seconds=seconds,
        output_tail="\n".join(output.splitlines()[-30:]),
    )
