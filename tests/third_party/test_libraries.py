"""Every installed third-party filter through the pytest entry point: the command's verdict, in words.

One parametrized test walks them all: ``assert_filter_ok(TheirClass)``, the maintainers' one line,
either returns or raises FilterAuditFailed, never a traceback of the library's own (pybloom-live's
"at capacity" IndexError once came through). Its verdicts are the recorded run's, case by case, as
``audit-bloom --all --compare docs/bloom-audit.json`` holds the command to them, and every fault it
finds has a recorded reproduction.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dedup_harness.bloom_audit import record
from dedup_harness.bloom_audit.package_targets import PACKAGE_TARGETS
from dedup_harness.bloom_audit.target import TargetError
from dedup_harness.bloom_audit.testing import FilterAuditFailed, assert_filter_ok, audit_filter
from dedup_harness.cli import main

from .requirements import require, unreproduced

RECORD = Path(__file__).resolve().parents[2] / "docs" / "bloom-audit.json"
CLASSES = {library.name: (library.module, library.adapter.constructor) for library in PACKAGE_TARGETS}
CLASSES["datatrove"] = ("datatrove.pipeline.dedup.bloom_filter", "SingleBloomFilter")


@pytest.mark.parametrize("name", CLASSES)
def test_the_pytest_entry_point_gives_each_library_the_recorded_verdicts_in_words(name: str) -> None:
    module, constructor = CLASSES[name]
    cls = getattr(require(module), constructor)
    try:
        report = assert_filter_ok(cls)
    except FilterAuditFailed as failed:
        report = failed.report
        assert str(failed).startswith(f"{name} fails ") and "Faults found" in str(failed)
    assert report.target == name
    assert record.changes(record.load(RECORD), [report]) == []
    assert not unreproduced(report)


def test_rbloom_through_the_entry_point_measures_the_same_in_processes_with_other_hash_seeds() -> None:
    require("rbloom")
    code = "from dedup_harness.bloom_audit.testing import audit_filter; import rbloom\n"
    code += "print([row.false_positives for row in audit_filter(rbloom.Bloom, families=['high rate']).rows])"
    runs = [
        subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True)
        for seed in ("1", "2")
    ]
    assert runs[0].returncode == 0 and runs[0].stdout == runs[1].stdout, runs[0].stderr


def test_options_for_a_filter_of_ones_own_are_refused_for_a_librarys_class_not_ignored(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bloom = require("rbloom").Bloom
    refused = "rbloom.Bloom is audited as the built-in target 'rbloom': takes, index and bits apply only to"
    for options in ({"takes": "bits"}, {"index": "positions"}, {"bits": "bits"}):
        with pytest.raises(TargetError, match=refused):
            audit_filter(bloom, **options)
    assert main(["audit-bloom", "rbloom:Bloom", "--bits", "bits"]) == 2
    assert refused in capsys.readouterr().err
