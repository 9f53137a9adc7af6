"""A pytest plugin for ``check``: a student's own code, run in-process, and what the grader would find and refuse.

Loaded with the arguments ``plugin_args`` spells, beside the suite pointed at the student's root
(``--impl``). No worker, no sandbox; so that the report predicts grade's, the plugin points
``tempfile``'s folder at a scratch folder of the run (as the grader points it at its worker's),
turns what grade would refuse (``noticed.py``) into the ``PermissionError`` the check would meet in
the grader, hangs on each crash the innermost frame of the student's files, and writes the grading
sidecar's shape at the end, with what was noticed (``--check-noticed``). An import grade would refuse
is said and the checks run anyway: grade's 0 for it is what ``check`` predicts (``prediction.py``).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import json
import os
import sys
import tempfile
from collections.abc import Generator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.check import noticed, rules_here
from dedup_harness.check.noticed import Noticed, Noticer
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.impl_under_test import IMPL_KEY, UNDER_TEST_KEY, start
from dedup_harness.core.outcome_recorder import SITE_ATTRIBUTE, CheckTimeout
from dedup_harness.core.write_watch import WRITES_KEY, TempFolder
from dedup_harness.grade.sandbox.packages import modules_of
from dedup_harness.grade.signature import static_problems
from dedup_harness.grade.submission import Problem, compile_problems, import_problems
from dedup_harness.grade.worker.protocol import NAMES, encode
from dedup_harness.grade.worker.surface import surface

PLUGIN = __name__
SIDECAR_OPTION = "--check-json"
ALLOW_OPTION = "--check-allow"
NOTICED_OPTION = "--check-noticed"
REFUSED_BY_GRADE = " (grade refuses the import, and gives every check 0; here the checks ran as if it were allowed)"
REFUSED_IMPORT = "refused import"  # a Problem's kind: an import grade refuses, which check runs anyway
NOTICED = "noticed"  # the kind of a sidecar event: what grade would refuse, as this plugin noticed it
PROTECTIONS = {
    "tier": "none",
    "in_force": ["none: your own code, run in this process by `dedup-harness check`, with no sandbox"],
    "attempts_from": "check",
}


def plugin_args(sidecar: Path, allowed: Sequence[str] = (), noticed_file: Path | None = None) -> list[str]:
    """pytest's arguments for the plugin: the sidecar's path, the packages the course allows, and where what grade
    would refuse is written for ``check``."""
    args = ["-p", PLUGIN, f"{SIDECAR_OPTION}={sidecar}", *(f"{ALLOW_OPTION}={name}" for name in allowed)]
    return args + ([f"{NOTICED_OPTION}={noticed_file}"] if noticed_file is not None else [])


@dataclass(eq=False)  # pytest keeps plugins in sets: identity makes one
class OwnCode:
    root: Path
    output: Path
    allowed: list[str]  # the packages the course allows
    recorder: Noticer
    noticed_file: Path | None = None
    student_files: list[Path] = field(default_factory=list)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, Any, Any]:
        self.recorder.check = getattr(item, "originalname", item.name)
        try:
            return (yield)
        finally:
            self.recorder.check = None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, Any]:
        try:
            result = yield
        except CheckTimeout:
            raise
        except BaseException as error:
            self._refused(item)
            _hang_site(error, site_in(error, self.student_files))
            raise
        self._refused(item)
        return result

    def _refused(self, item: pytest.Item) -> None:
        """Grade would have refused what the student's code did in this check: it ends as grade's refusal does."""
        found = self.recorder.of(getattr(item, "originalname", item.name))
        if found:
            raise refusal(found[0])

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        self.recorder.on = False
        found = problems(self.root, self.allowed)
        data = {"static": [asdict(p) for p in found], "protections": PROTECTIONS, **sidecar_noticed(self.recorder)}
        self.output.write_text(json.dumps(data), encoding="utf-8")  # ASCII: no text of any kind stops the write
        if self.noticed_file is not None:
            refused = [p.message for p in found if p.kind == REFUSED_IMPORT]
            written = {"noticed": [asdict(n) for n in self.recorder.noticed], "refused_imports": refused}
            written["unforeseen"] = self.recorder.unforeseen
            self.noticed_file.write_text(json.dumps(written), encoding="utf-8")


def refusal(first: Noticed) -> PermissionError:
    """What a check ends with when grade would have refused what the student's code did in it."""
    error = PermissionError(errno.EPERM, f"grade refuses this, which `check` let run: your code {first.note}")
    _hang_site(error, first.site)
    return error


def _hang_site(error: BaseException, site: str) -> None:
    if site and not getattr(error, SITE_ATTRIBUTE, ""):
        with contextlib.suppress(AttributeError, TypeError):  # an exception type that takes no attributes
            setattr(error, SITE_ATTRIBUTE, site)


def site_in(error: BaseException, files: Sequence[Path]) -> str:
    """The innermost frame of ``files`` in ``error``'s traceback, in words ("dedup.py line 40, in _spool")."""
    names = {os.path.realpath(path) for path in files}
    found = ""
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if os.path.realpath(code.co_filename) in names:
            found = f"{Path(code.co_filename).name} line {tb.tb_lineno}, in {code.co_qualname}"
        tb = tb.tb_next
    return found


def sidecar_noticed(recorder: Noticer) -> dict[str, Any]:
    """What was noticed, in the sidecar's shape: by check, the categories of the rules met (at import: every
    check's), and one event each for the report's list of attempts."""
    refused: dict[str, list[str]] = {}
    for check in CHECKS:
        categories = sorted({n.category for n in recorder.of(check)})
        if categories:
            refused[check] = categories
    kept = [n for n in recorder.noticed if n in recorder.of(n.check)]
    events = [{"kind": NOTICED, "detail": f"{n.note} (at {n.site})", "check": n.check} for n in kept]
    return {"refused": refused, "events": events}


def problems(root: Path, allowed: Sequence[str] = ()) -> list[Problem]:
    """Compile, look at what it imports, import, and compare names and signatures with the stub, as the grader
    does first."""
    source = (root / "corpus" / "dedup.py").read_bytes()  # the submission's bytes: decoded as Python decodes them
    found = compile_problems(source)
    if found:
        return found
    modules = [module for name in allowed for module in modules_of(name)]
    said = import_problems(source, modules, then=REFUSED_BY_GRADE)
    refused = [Problem(REFUSED_IMPORT, p.message, p.cause) for p in said]
    try:
        module = importlib.import_module("corpus.dedup")
    except BaseException as error:  # their code may raise anything while it is imported, sys.exit too
        message = f"the submission could not be imported: {type(error).__name__}: {error}"
        return [*refused, Problem("import", message, f"importing it raised {type(error).__name__}")]
    names = {name: surface(module, name, lambda v: encode(v, None, exact=False)) for name in NAMES}
    return [*refused, *static_problems(names)]


def stage_folders(root: Path, home: Path) -> tuple[list[str], list[str]]:
    """(read-write, read-only) folders of the stage, as grade's worker has them: this run's own folder (the checks'
    spool_dir lie under it) and the stage's home (its working and temp folder); the student's root and what the
    interpreter reads."""
    tempfile.tempdir = str(home)  # tempfile with no dir: here, as in the worker's own folder
    writable = [os.path.realpath(home.parent), os.path.realpath(home), "/dev/null"]
    return writable, [os.path.realpath(root), *noticed.interpreter_folders()]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dedup-harness check")
    group.addoption(SIDECAR_OPTION, dest="check_json", metavar="FILE", help="write what check found to FILE")
    group.addoption(
        ALLOW_OPTION, dest="check_allow", action="append", default=[], metavar="PACKAGE", help="a package allowed"
    )
    group.addoption(NOTICED_OPTION, dest="check_noticed", metavar="FILE", help="write what grade would refuse to FILE")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("check_json")
    if path:
        under = config.stash[UNDER_TEST_KEY] if UNDER_TEST_KEY in config.stash else start(config)
        root = under.root.resolve()
        files = [root / "corpus" / "dedup.py", *(root / "corpus" / f"{name}.py" for name in under.own)]
        home = rules_here.stage_home(Path(os.getcwd()))  # run_suite's scratch: a fresh folder for this run
        writable, readable = stage_folders(root, home)
        rules_here.apply_limits()
        config.stash[IMPL_KEY] = rules_here.Timed(fresh_dedup)
        config.stash[WRITES_KEY] = lambda scratch: TempFolder(scratch, also={home: "your home and working folder"})
        recorder = noticed.start(Noticer(files, writable, readable))
        noticed_file = config.getoption("check_noticed")
        allowed = config.getoption("check_allow")
        own = OwnCode(root, Path(path), allowed, recorder, Path(noticed_file) if noticed_file else None, files)
        config.pluginmanager.register(own, "dedup-harness-check")


def fresh_dedup() -> Any:
    """The student's module imported anew, as a new worker of grade's imports it (``Timed`` asks after a timeout)."""
    sys.modules.pop("corpus.dedup", None)
    return importlib.import_module("corpus.dedup")
