"""The edges ARCHITECTURE.md says must never exist, checked on every module's imports.

Imports are read from the source (``ast``), top-level and nested alike, so an import hidden in a
function counts too. A module imports a package when it names it or anything inside it.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dedup_harness.core.paths import DATA_ROOT, PACKAGE_DIR

HARNESS = "dedup_harness"
CAPABILITIES = ("verify", "grade", "check", "distribution", "mutation", "bloom_audit")
# The capabilities that build on grade/ (check is grade without the sandbox; distribution spreads its batches).
BUILT_ON_GRADE = ("check", "distribution")
REPORTS = (
    "verify/report.py",
    "verify/stryker.py",
    "verify/html.py",
    "grade/reports",
    "mutation/report.py",
    "bloom_audit/report.py",
    "bloom_audit/html.py",
)


def imports_of(path: Path) -> Iterator[str]:
    """Every module ``path`` imports, absolute; a relative import is given as ``.name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            yield from (f"{base}.{alias.name}" for alias in node.names)


def modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def harness_modules(part: str) -> list[Path]:
    target = PACKAGE_DIR / part
    return [target] if target.suffix == ".py" else modules(target)


def is_stdlib(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names or name == "__future__"


def offenders(paths: list[Path], allowed: object) -> list[str]:
    found = []
    for path in paths:
        for name in imports_of(path):
            if not allowed(path, name):  # type: ignore[operator]
                found.append(f"{path.name}: {name}")
    return found


def under(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_the_reference_imports_only_the_standard_library_and_itself() -> None:
    """Students get impl/ as it is, and what verify and mutation test is what they read: no optional fast path."""
    found = offenders(modules(DATA_ROOT / "impl"), lambda path, name: is_stdlib(name) or under(name, "corpus"))
    assert found == []


def test_the_external_sort_imports_only_the_standard_library_and_corpus() -> None:
    """Its corpus package is its own files plus the reference's (through __path__), nothing of the harness;
    numpy only in its optional batch path."""

    def allowed(path: Path, name: str) -> bool:
        numpy = path.name == "bloom_numpy.py" and under(name, "numpy")
        return is_stdlib(name) or under(name, "corpus") or numpy

    assert offenders(modules(DATA_ROOT / "impl_external"), allowed) == []


def test_the_oracle_shares_nothing_with_the_reference_but_doc() -> None:
    """An oracle that shares code with what it checks shares its bugs."""
    assert (
        offenders(modules(DATA_ROOT / "oracle"), lambda path, name: is_stdlib(name) or under(name, "corpus.doc")) == []
    )


def test_the_canary_is_data_that_imports_only_what_a_submission_may() -> None:
    canary = [DATA_ROOT / "mutants" / "canary_dedup.py"]
    assert offenders(canary, lambda path, name: is_stdlib(name) or under(name, "corpus")) == []


def test_the_grading_worker_imports_only_the_standard_library_and_itself() -> None:
    """It runs in the sandbox, where the harness's files are unreadable; it imports the submission's corpus."""
    worker = harness_modules("grade/worker")
    assert worker, "the worker package is where ARCHITECTURE.md says"
    allowed = lambda path, name: is_stdlib(name) or name.startswith(".") or under(name, "corpus")  # noqa: E731
    assert offenders(worker, allowed) == []


def test_the_core_imports_no_capability_and_no_command() -> None:
    def allowed(path: Path, name: str) -> bool:
        return not under(name, *(f"{HARNESS}.{c}" for c in (*CAPABILITIES, "commands", "cli")))

    assert offenders(harness_modules("core"), allowed) == []


@pytest.mark.parametrize("capability", CAPABILITIES)
def test_a_capability_imports_only_the_core_and_itself(capability: str) -> None:
    def allowed(path: Path, name: str) -> bool:
        if not under(name, HARNESS):
            return True
        below = ("core", capability, *(("grade",) if capability in BUILT_ON_GRADE else ()))
        return under(name, *(f"{HARNESS}.{c}" for c in below)) or name == f"{HARNESS}.__version__"

    assert offenders(harness_modules(capability), allowed) == []


def test_reports_never_import_commands_or_the_runner() -> None:
    """Data flows CLI -> targets -> run -> matrix/grade -> reports, with no edge back."""
    paths = [path for part in REPORTS for path in harness_modules(part)]
    assert paths
    banned = (f"{HARNESS}.commands", f"{HARNESS}.cli", f"{HARNESS}.core.runner")
    assert offenders(paths, lambda path, name: not under(name, *banned)) == []


def test_nothing_but_the_console_script_imports_the_commands() -> None:
    everything = [p for p in modules(PACKAGE_DIR) if "commands" not in p.relative_to(PACKAGE_DIR).parts]
    inside = [p for p in everything if p.name != "cli.py"]
    assert offenders(inside, lambda path, name: not under(name, f"{HARNESS}.commands", f"{HARNESS}.cli")) == []


def test_the_checks_above_catch_a_forbidden_edge(tmp_path: Path) -> None:
    """A module that imports the harness from inside the worker is found (the checks can fail)."""
    rogue = tmp_path / "rogue.py"
    rogue.write_text("def f():\n    from dedup_harness.core import paths\n", encoding="utf-8")
    assert list(imports_of(rogue)) == ["dedup_harness.core.paths"]
    assert offenders([rogue], lambda path, name: is_stdlib(name)) != []
