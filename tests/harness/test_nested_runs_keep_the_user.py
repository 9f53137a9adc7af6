"""A pytest run that a test starts leaves the run's test user alone.

The run's first process names a file (``DEDUP_HARNESS_TEST_USER_MADE``) where the process that makes the test
user writes its name, and removes that user when the run ends. Every pytest started under the run inherits the
variable and loads the same conftest: the grader's own trusted run among them (``grade`` called in-process, as
test_check_predicts_grade does). One such run once removed the user halfway through the slow tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parents[1] / "suite"


def test_a_nested_run_neither_removes_the_user_nor_its_file(tmp_path: Path) -> None:
    made = tmp_path / "made"
    made.write_text("dedup-harness-no-such-user", encoding="utf-8")
    env = {**os.environ, "DEDUP_HARNESS_TEST_USER_MADE": str(made)}
    command = [sys.executable, "-m", "pytest", str(SUITE), "-q", "-p", "no:xdist", "-p", "no:benchmark"]
    command += ["-k", "test_stats_name_every_key"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert made.read_text(encoding="utf-8") == "dedup-harness-no-such-user"
