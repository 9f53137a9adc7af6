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


CALL_PATH = ("grade.client.calls", "grade.client.exchange", "grade.worker.protocol")
ON_A_FAULT = ("grade.client.faults", "grade.client.events")


def test_a_call_from_the_proxy_crosses_the_five_modules_architecture_md_draws() -> None:
    """The proxy, one place for every per-call concern, the exchange, the protocol and the worker's loop: the proxy
    imports nothing else of the grader (the faults and the events, for what goes wrong; the sandbox, as a type)."""
    allowed = tuple(f"{HARNESS}.{name}" for name in (*CALL_PATH, *ON_A_FAULT, "grade.sandbox"))
    proxy = [PACKAGE_DIR / "grade" / "client" / "proxy.py"]
    assert offenders(proxy, lambda path, name: is_stdlib(name) or under(name, *allowed)) == []
    drawn = (
        (DATA_ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8") if (DATA_ROOT / "ARCHITECTURE.md").is_file() else ""
    )
    if drawn:
        assert "proxy.py ── calls.py ── exchange.py ══ worker/protocol.py ══ worker/main.py" in drawn


def classes() -> dict[str, list[str]]:
    """Every class the harness defines at the top of a module, by name: the modules that define it."""
    found: dict[str, list[str]] = {}
    for path in modules(PACKAGE_DIR):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(str(path.relative_to(PACKAGE_DIR)))
    return found


def test_no_class_name_has_two_meanings() -> None:
    """A reader who meets ``Worker`` or ``Run`` knows which one: a class name is defined once in the harness."""
    assert {name: where for name, where in classes().items() if len(where) > 1} == {}


def module_graph() -> dict[str, set[str]]:
    """Each harness module's imports of other harness modules, ``TYPE_CHECKING`` ones included."""
    names = {".".join(p.relative_to(PACKAGE_DIR.parent).with_suffix("").parts).removesuffix(".__init__"): p
             for p in modules(PACKAGE_DIR)}  # fmt: skip
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for imported in imports_of(path):
            if imported.startswith("."):
                dots = len(imported) - len(imported.lstrip("."))
                base = package.rsplit(".", dots - 1)[0] if dots > 1 else package
                imported = f"{base}.{imported.lstrip('.')}"
            while imported and imported not in names:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                found.add(imported)
        graph[name] = found
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's, written without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, edges = work[-1]
            nxt = next((e for e in edges if e in graph), None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                work.append((nxt, iter(sorted(graph[nxt]))))
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
    return found


def test_no_two_modules_import_each_other_even_for_types_alone() -> None:
    """An import circle, through TYPE_CHECKING or not, means a concept sits above its users: none is left."""
    assert circles(module_graph()) == []


def test_the_circle_finder_finds_one() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
