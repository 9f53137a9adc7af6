"""A filter hashing with Python's hash() gets the same numbers in every process: the API audits it under one seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from . import shown_filters

ROOT = Path(shown_filters.__file__).parents[1]  # the folder the tests' package is imported from
CODE = f"""
import json, sys
sys.path.insert(0, {str(ROOT)!r})
from dedup_harness.bloom_audit.testing import audit_filter
from {shown_filters.__name__} import HashedFilter
report = audit_filter(HashedFilter, families=["power of two"], queries=2000)
print(json.dumps([row.false_positives for row in report.rows] + [row.reachable_bits for row in report.rows]))
"""


def measured(seed: str) -> list[int]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    ran = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True)
    return list(json.loads(ran.stdout))


def test_two_processes_with_other_hash_seeds_measure_the_same_numbers() -> None:
    assert measured("1") == measured("2")


def test_the_filter_does_hash_differently_in_each_process() -> None:
    # without the audit's fixed seed the same item gets other bits: what the equality above overcomes
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from {shown_filters.__name__} import HashedFilter as F"
    code += "; print(F(107, 0.01)._positions(b'item'))"
    runs = [
        subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True)
        for seed in ("1", "2")
    ]
    assert runs[0].stdout != runs[1].stdout
