"""A pytest plugin for ``check``: a student's own code, run in-process, and what the grader would find first.

Loaded with the arguments ``plugin_args`` spells, beside the suite pointed at the student's root
(``--impl``). There is no worker and no sandbox (it is their own code, on their own machine); when
the session ends it writes FILE in the grading sidecar's shape: the problems found before the checks
ran (a compile error, an import the course does not allow, a missing name, a wrong signature) and the
protections, which are none. An import ``grade`` would refuse is said, and the checks run anyway: the
student's machine may well have the package.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

from dedup_harness.core.impl_under_test import IMPL_DEST
from dedup_harness.grade.sandbox.packages import modules_of
from dedup_harness.grade.signature import static_problems
from dedup_harness.grade.submission import Problem, compile_problems, import_problems
from dedup_harness.grade.worker.surface import surface
from dedup_harness.grade.worker.wire import NAMES, encode

PLUGIN = __name__
SIDECAR_OPTION = "--check-json"
ALLOW_OPTION = "--check-allow"
REFUSED_BY_GRADE = " (grade refuses it)"
PROTECTIONS = {
    "tier": "none",
    "in_force": ["none: your own code, run in this process by `dedup-harness check`, with no sandbox"],
}


def plugin_args(sidecar: Path, allowed: Sequence[str] = ()) -> list[str]:
    """pytest's arguments for the plugin: the sidecar's path, and the packages the course allows."""
    return ["-p", PLUGIN, f"{SIDECAR_OPTION}={sidecar}", *(f"{ALLOW_OPTION}={name}" for name in allowed)]


@dataclass(eq=False)  # pytest keeps plugins in sets: identity makes one
class OwnCode:
    root: Path
    output: Path
    allowed: list[str]  # the packages the course allows

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        data = {"static": [asdict(p) for p in problems(self.root, self.allowed)], "protections": PROTECTIONS}
        self.output.write_text(json.dumps(data), encoding="utf-8")  # ASCII: no text of any kind stops the write


def problems(root: Path, allowed: Sequence[str] = ()) -> list[Problem]:
    """Compile, look at what it imports, import, and compare names and signatures with the stub, as the grader
    does first."""
    source = (root / "corpus" / "dedup.py").read_bytes()  # the submission's bytes: decoded as Python decodes them
    found = compile_problems(source)
    if found:
        return found
    modules = [module for name in allowed for module in modules_of(name)]
    refused = import_problems(source, modules, then=REFUSED_BY_GRADE)
    try:
        module = importlib.import_module("corpus.dedup")
    except BaseException as error:  # their code may raise anything while it is imported, sys.exit too
        return [*refused, Problem("import", f"the submission could not be imported: {type(error).__name__}: {error}")]
    names = {name: surface(module, name, lambda v: encode(v, None, exact=False)) for name in NAMES}
    return [*refused, *static_problems(names)]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dedup-harness check")
    group.addoption(SIDECAR_OPTION, dest="check_json", metavar="FILE", help="write what check found to FILE")
    group.addoption(
        ALLOW_OPTION, dest="check_allow", action="append", default=[], metavar="PACKAGE", help="a package allowed"
    )


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("check_json")
    if path:
        root = Path(config.getoption(IMPL_DEST)).resolve()
        own = OwnCode(root, Path(path), config.getoption("check_allow"))
        config.pluginmanager.register(own, "dedup-harness-check")
