"""Run the suite against one implementation root in its own pytest process, and read the outcomes.

The child writes per-check outcomes through the ``dedup_harness.outcomes`` plugin; the parent reads
that JSON file, never the child's printed text. A run that outlives its wall-time limit is killed
with its whole process group, and every check without an outcome is a ``timeout``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dedup_harness.checks import CHECKS
from dedup_harness.outcomes import PRECEDENCE, Outcome
from dedup_harness.paths import SUITE_DIR


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

    def failed(self) -> frozenset[str]:
        return frozenset(name for name, outcome in self.outcomes.items() if outcome is Outcome.FAILED)


def fold(cases: Sequence[Mapping[str, Any]]) -> Outcome:
    """One outcome for a check from the outcomes of its cases."""
    seen = {Outcome(case["outcome"]) for case in cases}
    return next((outcome for outcome in PRECEDENCE if outcome in seen), Outcome.ERROR)


def suite_command(root: Path, outcomes_file: Path, *, check_timeout: float, extra: Sequence[str] = ()) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        str(SUITE_DIR),
        f"--impl={root}",
        "-p",
        "dedup_harness.outcomes",
        f"--outcomes-json={outcomes_file}",
        f"--check-timeout={check_timeout}",
        # The suite's own settings, whatever ini file lies around the working directory.
        "-c",
        os.devnull,
        f"--rootdir={SUITE_DIR.parent}",
        "-p",
        "no:cacheprovider",
        "-q",
        "--no-header",
        "-rN",
        *extra,
    ]


def run_suite(
    root: Path,
    *,
    timeout: float = 300.0,
    check_timeout: float = 60.0,
    profile: str = "ci",
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> SuiteResult:
    """Run the twelve checks against ``root`` in a fresh pytest process."""
    started = time.monotonic()
    child_env = {**os.environ, **(env or {}), "DEDUP_HARNESS_PROFILE": profile, "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryDirectory(prefix="dedup-harness-run-") as scratch:
        outcomes_file = Path(scratch) / "outcomes.json"
        command = suite_command(root, outcomes_file, check_timeout=check_timeout, extra=extra_args)
        process = subprocess.Popen(
            command,
            cwd=scratch,
            env=child_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # so a timeout can kill everything the run started
        )
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
        data = json.loads(outcomes_file.read_text(encoding="utf-8")) if outcomes_file.exists() else {}
    cases: dict[str, list[dict[str, Any]]] = data.get("checks", {})
    timed_out = process.returncode is not None and process.returncode < 0
    missing = Outcome.TIMEOUT if timed_out else Outcome.ERROR
    return SuiteResult(
        root=root,
        outcomes={name: fold(cases[name]) if name in cases else missing for name in CHECKS},
        cases=cases,
        collection_errors=data.get("collection_errors", []),
        exitstatus=data.get("exitstatus"),
        seconds=time.monotonic() - started,
        output_tail="\n".join(output.decode("utf-8", "replace").splitlines()[-30:]),
    )
