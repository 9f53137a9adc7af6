"""A filter hashing with Python's hash() gets the same numbers in every process: audited under one seed.

The API does it, and so does the command on a filter named by its file, whatever PYTHONHASHSEED it runs under.
"""

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


HASHED = """
import math


class HashBloom:
    def __init__(self, capacity, error_rate):
        if capacity > 200:  # the audit's larger cases are then n/a: the test stays quick
            raise ValueError("for small sets only")
        self.m = math.ceil(-capacity * math.log(error_rate) / math.log(2) ** 2)
        self.k = max(1, round(self.m / capacity * math.log(2)))
        self.bits = bytearray(-(-self.m // 8))

    def _where(self, item):
        return [hash(item + bytes([i])) % self.m for i in range(self.k)]

    def add(self, item):
        for b in self._where(item):
            self.bits[b // 8] |= 1 << b % 8

    def __contains__(self, item):
        return all(self.bits[b // 8] >> b % 8 & 1 for b in self._where(item))
"""


def test_the_command_measures_a_file_of_ones_own_the_same_under_other_hash_seeds(tmp_path: Path) -> None:
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "hashed_bloom.py").write_text(HASHED, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    code = "import sys; from dedup_harness.cli import main; sys.exit(main(sys.argv[1:]))"
    argv = [sys.executable, "-c", code, "audit-bloom", "../theirs/hashed_bloom.py:HashBloom", "--json", "-"]

    def measured(seed: str) -> list[tuple[object, ...]]:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        ran = subprocess.run(argv, cwd=tmp_path / "elsewhere", env=env, capture_output=True, text=True, check=False)
        (entry,) = json.loads(ran.stdout)["targets"]
        return [(row["verdict"], row["false_positives"], row["reachable_bits"]) for row in entry["rows"]]

    first = measured("1")
    assert [verdict for verdict, _, _ in first].count("n/a") == 8  # three cases measured
    assert first == measured("2")
