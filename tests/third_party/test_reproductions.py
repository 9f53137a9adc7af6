"""Every recorded reproduction still shows its fault on the installed release, with the library alone."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dedup_harness.bloom_audit.package_targets import PACKAGE_TARGETS
from dedup_harness.bloom_audit.reproductions import Reproduction, catalogue

from .requirements import require

MODULES = {cls.name: cls.module for cls in PACKAGE_TARGETS} | {"datatrove": "datatrove.pipeline.dedup.bloom_filter"}


@pytest.mark.parametrize("reproduction", catalogue(), ids=lambda r: f"{r.target}:{r.title[:40]}")
def test_the_reproduction_exits_zero_while_the_fault_is_there(reproduction: Reproduction) -> None:
    require(MODULES[reproduction.target])
    ran = subprocess.run([sys.executable, "-c", reproduction.code], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, f"{reproduction.target} {reproduction.title}:\n{ran.stdout}\n{ran.stderr[-2000:]}"


def test_every_reproduction_names_a_known_library() -> None:
    assert {r.target for r in catalogue()} <= set(MODULES)
