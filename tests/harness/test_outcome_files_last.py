"""The trusted run's result files are written after every plugin's session end.

In grade the grading plugin stops the worker as the session ends (trylast) and removes what it wrote; a
submission that fills the temp folder's disk in its last moments once left the outcomes file empty, and the
grade a harness error (``JSONDecodeError``) in place of its "disk full" verdict. So the outcome recorder
writes as pytest unconfigures, after every session end, the grading plugin's included.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

LAST_AT_SESSION_END = """
import os, pytest

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    path = session.config.getoption("outcomes_json")
    with open(os.environ["SEEN_AT_END"], "w") as seen:
        seen.write("there" if os.path.exists(path) else "not yet")
"""


def test_the_outcomes_file_is_written_after_the_last_plugins_session_end(tmp_path: Path) -> None:
    (tmp_path / "last_at_end.py").write_text(LAST_AT_SESSION_END, encoding="utf-8")
    (tmp_path / "test_one.py").write_text("def test_passes():\n    pass\n", encoding="utf-8")
    outcomes, seen = tmp_path / "outcomes.json", tmp_path / "seen.txt"
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "SEEN_AT_END": str(seen)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "last_at_end"]
    command += ["-p", "dedup_harness.core.outcome_recorder", f"--outcomes-json={outcomes}", "test_one.py"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert seen.read_text(encoding="utf-8") == "not yet"
    written = json.loads(outcomes.read_text(encoding="utf-8"))
    assert written["exitstatus"] == 0 and [c["outcome"] for c in written["checks"]["test_passes"]] == ["passed"]
