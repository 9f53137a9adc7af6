"""Grade one test submission the way the grader does: prepare it, run the suite through the plugin.

A hostile submission in ``submissions/hostile/`` whose first line is ``# base: reference`` is the
reference's dedup.py with the file appended (so it overrides only what it attacks); any other file
is the whole dedup.py. A file saved in another encoding says so on its first line with a PEP 263
coding cookie, and the mark follows it: the cookie stays first, and the whole is that encoding's bytes
(``hostile_bytes``).
"""

from __future__ import annotations

import json
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.core.runner import SuiteResult, run_suite
from dedup_harness.grade.plugin import plugin_args
from dedup_harness.grade.sandbox.tiers import Tier, why_not
from dedup_harness.grade.submission import Submission, prepare

HOSTILE_DIR = Path(__file__).resolve().parent / "submissions" / "hostile"
# Ordinary code the rulebook lets through (threads, open files, a user name): written on the reference too.
ORDINARY_DIR = HOSTILE_DIR.parent / "ordinary"
BASE_MARK = "# base: reference"
COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")  # PEP 263's, on the first line


@dataclass
class Graded:
    submission: Submission
    result: SuiteResult
    sidecar: dict[str, Any]

    def outcome(self, check: str) -> Outcome:
        return self.result.outcomes[check]

    def events(self, kind: str) -> list[str]:
        return [e["detail"] for e in self.sidecar["events"] if e["kind"] == kind]

    def says(self, kind: str, words: str) -> bool:
        return any(words in detail for detail in self.events(kind))


def tier_param(tier: str) -> Any:
    """A pytest parameter for grading in ``tier``, skipped with the reason where it cannot run here."""
    reason = why_not(Tier(tier))
    return pytest.param(tier, id=tier, marks=pytest.mark.skipif(reason is not None, reason=str(reason)))


def hostile_source(name: str, folder: Path = HOSTILE_DIR) -> str:
    return hostile_bytes(name, folder).decode(_encoding(name, folder))


def hostile_bytes(name: str, folder: Path = HOSTILE_DIR) -> bytes:
    """The sample's dedup.py as a student would hand it in: bytes, in the encoding its cookie names (``folder``:
    the hostile samples', or another folder of samples written on the reference, ``ORDINARY_DIR``)."""
    encoding = _encoding(name, folder)
    text = (folder / f"{name}.py").read_text(encoding=encoding)
    cookie = ""
    if COOKIE.match(text):
        cookie, _, text = text.partition("\n")
        cookie += "\n"
    if text.startswith(BASE_MARK):
        reference = (IMPL_ROOT / "corpus" / "dedup.py").read_text(encoding="utf-8")
        text = f"{reference}\n\n# ---- the hostile part ----\n{text}"
    return (cookie + text).encode(encoding)


def _encoding(name: str, folder: Path = HOSTILE_DIR) -> str:
    with open(folder / f"{name}.py", "rb") as sample:
        return tokenize.detect_encoding(sample.readline)[0]


def grade(
    source: str,
    tmp_path: Path,
    *,
    checks: Sequence[str] = (),
    tier: str = "auto",
    options: Sequence[str] = ("--call-timeout=2", "--submission-timeout=8", "--memory-mb=512", "--disk-mb=96"),
) -> Graded:
    submitted = tmp_path / "submitted" / "dedup.py"
    submitted.parent.mkdir()
    submitted.write_text(source, encoding="utf-8")
    submission = prepare(submitted, tmp_path / "scratch")
    sidecar = tmp_path / "grading.json"
    args = plugin_args(submission.root, sidecar)
    args += [*options, f"--tier={tier}"]
    if checks:
        args += ["-k", " or ".join(checks)]
    result = run_suite(IMPL_ROOT, profile="grading", extra_args=args, timeout=240)
    assert sidecar.exists(), f"the grading plugin wrote no sidecar; pytest said:\n{result.output_tail}"
    return Graded(submission, result, json.loads(sidecar.read_text(encoding="utf-8")))
