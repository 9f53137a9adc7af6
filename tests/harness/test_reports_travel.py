"""Nothing a student sees holds a path of the grader's machine: the same submission graded from two
install locations of the harness gets the same reports, byte for byte apart from timing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dedup_harness.core.paths import DATA_FOLDERS, DATA_ROOT, PACKAGE_DIR

SAMPLE = Path("tests/harness/submissions/samples/keeps_last.py")
TIMING = re.compile(r'("(?:execution_time|seconds)": )[0-9.]+|( time=")[0-9.]+')
PARTS = ("harness", *DATA_FOLDERS)


def installed_copy(folder: Path) -> Path:
    """The harness and its data, copied whole to ``folder`` (a second place it could be installed)."""
    for part in PARTS:
        shutil.copytree(DATA_ROOT / part, folder / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return folder


def reports(copy: Path, workdir: Path) -> list[str]:
    """Every machine report of grading SAMPLE with the harness at ``copy`` (timing zeroed)."""
    out = workdir / copy.name
    out.mkdir()
    (workdir / SAMPLE.parent).mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DATA_ROOT / SAMPLE, workdir / SAMPLE)
    command = [sys.executable, "-m", "dedup_harness.cli", "grade", str(SAMPLE), "--jobs", "1"]
    command += ["--json", str(out / "g.json"), "--junit", str(out / "g.xml"), "--csv", str(out / "g.csv")]
    command += ["--gradescope", str(out / "gs")]
    env = {**os.environ, "PYTHONPATH": str(copy / "harness")}
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    files = [out / "g.json", out / "g.xml", out / "g.csv", out / "gs" / "results.json"]
    return [TIMING.sub(lambda m: (m.group(1) or m.group(2)) + "0", f.read_text(encoding="utf-8")) for f in files]


@pytest.mark.skipif(not (DATA_ROOT / "harness").is_dir(), reason="needs the source tree (a checkout), not an install")
def test_two_install_locations_give_the_same_reports(tmp_path: Path) -> None:
    first = installed_copy(tmp_path / "site-a" / "dedup")
    second = installed_copy(tmp_path / "elsewhere" / "b" / "harness-copy")
    workdir = tmp_path / "work"
    workdir.mkdir()
    a, b = reports(first, workdir), reports(second, workdir)
    assert a == b
    for text in a:
        for place in (str(tmp_path), str(DATA_ROOT), str(PACKAGE_DIR)):
            assert place not in text, f"a path of this machine in a report: {place}"
