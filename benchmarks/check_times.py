"""A pytest plugin for the benchmarks: each check's CPU seconds (its cases' setup, call and teardown summed,
``time.process_time``: other work on the machine stretches wall time, not this) and the inputs it judged.

bench_checks.py's rounds hand pytest a ``CheckTimes`` object. Loaded by name instead (``-p check_times``,
this folder on the path, as the children of bench_verify.py's fork server load it), it writes what it
measured when the session ends, as JSON, to a file of its own in the folder ``DEDUP_BENCH_CHECK_TIMES``
names: the implementation root the run judged, and each check's CPU seconds.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core import case_log
from dedup_harness.core.impl_under_test import IMPL_DEST

FOLDER_ENV = "DEDUP_BENCH_CHECK_TIMES"


class CheckTimes:
    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.inputs: dict[str, int] = {}
        self.current: str | None = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, None]:
        started, self.current = time.process_time(), getattr(item, "originalname", item.name)
        yield
        self.cpu[self.current] = self.cpu.get(self.current, 0.0) + time.process_time() - started

    def count_inputs(self) -> None:
        """Count each input a check judges (a Hypothesis example is one) as the suite records it."""
        recorded = case_log.record

        def counting(**inputs: Any) -> None:
            if self.current is not None:
                self.inputs[self.current] = self.inputs.get(self.current, 0) + 1
            recorded(**inputs)

        case_log.record = counting


class _Written(CheckTimes):
    def __init__(self, config: pytest.Config, folder: Path) -> None:
        super().__init__()
        self.config, self.folder = config, folder

    def pytest_sessionfinish(self) -> None:
        found = {"root": str(self.config.getoption(IMPL_DEST)), "checks": self.cpu}
        (self.folder / f"{os.getpid()}.json").write_text(json.dumps(found), encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    folder = os.environ.get(FOLDER_ENV)
    if folder:
        config.pluginmanager.register(_Written(config, Path(folder)), "dedup-bench-check-times")
