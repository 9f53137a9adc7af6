"""The student kit: built, installed in a fresh venv, and proved to hold no solution.

The wheel `dedup-harness student-kit DIR` writes is installed into a venv of its own (its
dependencies are this environment's, reached by a path in a .pth file: no network). In it:

- its files are the ones it should be: the suite, the oracle, the fixture, the course's doc,
  hashing and bloom, the contract's signatures, the catalogue's words, the docs; none of the
  reference's dedup.py, the external sort, a mutant's diff, the canary, a sample, refused or
  hostile submission, a benchmark;
- no file in it passes `check` when copied as a dedup.py. Running `check` on every file would take
  minutes; a cheap filter goes first, and it is sound: a module that binds no `exact_dedup` at its
  top level, and does nothing that could bind a name some other way (a star import, `globals()`,
  `setattr`, `exec`, a module `__getattr__`...), has no `exact_dedup` once imported, which check's
  static problems flag and every check then crashes on. The test proves the filter against each way
  a module can bind the name, and runs `check` for real on every file the filter lets through;
- no file carries the reference's private passes (spool, screen, confirm, emit and their helpers):
  no function's syntax tree is one of theirs, and no three lines of their code follow one another in
  any file. One thing is there on purpose and allowed here alone: the screen's rule (present: a
  candidate; new: insert), four lines in the trusted side's expectations (`core/judges/expected.py`),
  which must know what the course's filter answers; docs/student-kit.md says so;
- its commands are the student's four, and each works: `start` writes the stub, `tests` prints the
  catalogue, `check` grades a correct sample (students get none: it comes from this checkout), and
  `diff` asks for the reference staff release; `grade` is one line saying the kit does not have it.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.cli import STUDENT_COMMANDS, main
from dedup_harness.core.contract import SURFACE
from dedup_harness.core.impl_roots import OWN_MODULES
from dedup_harness.core.paths import DATA_ROOT, REFERENCE_SOURCE

SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"
DATA = "dedup_harness/_data/"
MUST_HOLD = (
    "impl/corpus/doc.py",
    "impl/corpus/hashing.py",
    "impl/corpus/bloom.py",
    "impl/corpus/dedup.pyi",
    "oracle/__init__.py",
    "tests/conftest.py",
    "tests/suite/test_paragraphs.py",
    "fixtures/data.03/docs.jsonl",
    "mutants/catalogue.toml",
    "docs/contract.md",
    "docs/checks.md",
    "docs/check.md",
    "docs/rules.md",
)
# Where an implementation of corpus.dedup lives in the staff install: none of it may be in the kit.
NEVER = ("impl/corpus/dedup.py", "impl_external/", "mutants/canary_dedup.py", "tests/harness/", "benchmarks/")
# How a module can come to have a name without binding it at its top level.
# Used, or spelled as a string, each lets a file through (code that hides what it calls behind computed strings
# is not what the kit holds): builtins by name, and attributes of another object (sys.modules, a __dict__).
DYNAMIC_NAMES = {"globals", "vars", "setattr", "exec", "eval", "compile", "__import__"}
DYNAMIC_ATTRIBUTES = {"__dict__", "modules", "import_module", "setattr"}
WINDOW = 3  # consecutive lines of the reference's private code that may appear nowhere in the kit
# The screen's rule as the trusted side replays it (core/judges/expected.py: the paragraphs read "present").
SCREEN_RULE = ("if bloom.contains(digest):", "present.add(paragraph)", "else:", "bloom.insert(digest)")


@dataclass(frozen=True)
class Kit:
    wheel: Path
    venv: Path  # its bin/ folder
    site: Path  # where the kit's package is installed
    names: list[str]  # the wheel's entries


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Kit:
    if not REFERENCE_SOURCE.is_file():
        pytest.skip("the kit is built from the staff install, which this is not")
    folder = tmp_path_factory.mktemp("kit")
    assert main(["student-kit", str(folder / "out")]) == 0
    [wheel] = (folder / "out").glob("*.whl")
    made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder / "venv")], capture_output=True)
    assert made.returncode == 0, made.stderr
    [site] = (folder / "venv").glob("lib/python3*/site-packages")
    ours = [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and Path(p).is_dir()]
    (site / "dependencies.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")  # paths: no .pth of theirs run
    python = folder / "venv" / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index"]
    installed = subprocess.run([*pip, str(wheel)], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    where = run(folder, python, "-c", "import dedup_harness; print(dedup_harness.__file__)")
    assert Path(where.stdout.strip()).is_relative_to(site), "the kit, not this checkout, is what runs"
    return Kit(wheel, folder / "venv" / "bin", site, zipfile.ZipFile(wheel).namelist())


def run(cwd: Path, *command: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS_", "DEDUP_HARNESS_"))}
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def kit_data(kit: Kit) -> list[str]:
    return [name.removeprefix(DATA) for name in kit.names if name.startswith(DATA)]


def test_the_kit_holds_the_suite_the_oracle_the_fixture_the_courses_modules_and_the_docs(kit: Kit) -> None:
    data = kit_data(kit)
    assert [name for name in MUST_HOLD if name not in data] == []
    assert {name for name in kit.names if name.startswith("corpus/")} == {f"corpus/{m}.py" for m in OWN_MODULES}
    assert {name.split("/")[0] for name in data} <= {
        "impl",
        "oracle",
        "tests",
        "fixtures",
        "mutants",
        "docs",
        "student-kit.txt",
    }


def test_the_kit_holds_no_implementation_of_the_module_and_no_submission(kit: Kit) -> None:
    data = kit_data(kit)
    assert [name for name in data if any(name == n or (n.endswith("/") and name.startswith(n)) for n in NEVER)] == []
    assert [name for name in data if name.endswith(".diff")] == []
    harness = {name.split("/")[1] for name in kit.names if name.startswith("dedup_harness/") and "/_data/" not in name}
    assert not harness & {"verify", "mutation", "bloom_audit", "distribution"}, "only what the four commands import"


def may_bind_exact_dedup(source: str) -> bool:
    """Could a module with this source have an ``exact_dedup`` once imported? False only where it surely cannot."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False  # check's compile problem: it cannot be imported at all
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in DYNAMIC_NAMES:
            return True
        if isinstance(node, ast.Attribute) and node.attr in DYNAMIC_ATTRIBUTES:
            return True
        if isinstance(node, ast.Constant) and node.value in DYNAMIC_NAMES | DYNAMIC_ATTRIBUTES:
            return True
        if isinstance(node, ast.Attribute) and node.attr == "exact_dedup" and isinstance(node.ctx, ast.Store):
            return True  # an attribute of some object that may be the module itself
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            return True
        if isinstance(node, ast.Global):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__getattr__":
            return True
    return "exact_dedup" in _top_level_names(tree)


def _top_level_names(tree: ast.Module) -> set[str]:
    """Every name a statement at the module's top level binds (nested blocks of if, try, with, for included)."""
    names: set[str] = set()
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
            elif isinstance(child, ast.MatchAs | ast.MatchStar) and child.name:
                names.add(child.name)
        todo += [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)]
    return names


BINDINGS = [
    "def exact_dedup(docs): return iter(docs)",
    "class exact_dedup: pass",
    "exact_dedup = lambda docs: iter(docs)",
    "exact_dedup: object = iter",
    "from oracle import exact_dedup",
    "import oracle as exact_dedup",
    "from oracle import *",
    "for exact_dedup in [iter]: pass",
    "with open(__file__) as exact_dedup: pass",
    "if True:\n    exact_dedup = iter",
    "try:\n    pass\nexcept Exception:\n    pass\nelse:\n    exact_dedup = iter",
    "(exact_dedup := iter)",
    "import sys\nsetattr(sys.modules[__name__], 'exact_' + 'dedup', iter)",
    "globals()['exact_' + 'dedup'] = iter",
    "exec('exact_' + 'dedup = iter')",
    "def f():\n    global exact_dedup\n    exact_dedup = iter\nf()",
    "def __getattr__(name): return iter",
    "vars()['exact_dedup'] = iter",
    "match [iter]:\n    case [exact_dedup]: pass",
    "import sys\nsys.modules[__name__].__dict__.update(exact_dedup=iter)",
    "import importlib\nimportlib.import_module(__name__).exact_dedup = iter",
    "import builtins\ngetattr(builtins, 'setattr')(__import__(__name__), 'exact_dedup', iter)",
]


@pytest.mark.parametrize("source", BINDINGS)
def test_the_filter_lets_through_every_way_a_module_can_come_to_have_exact_dedup(source: str, tmp_path: Path) -> None:
    """Each does give the module the name once imported, as check imports a dedup.py (our own one-liners, run
    here), and the filter lets each through."""
    module_path = tmp_path / "binds.py"
    module_path.write_text(source + "\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("binds", module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["binds"] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop("binds", None)
    assert hasattr(module, "exact_dedup") and may_bind_exact_dedup(source), source


def test_a_file_the_filter_turns_away_is_turned_away_by_check_too(kit: Kit, tmp_path: Path) -> None:
    """The filter's other half: with no exact_dedup, check's static problems say so, and check does not pass it."""
    registry = kit.site / "dedup_harness" / "core" / "checks.py"
    assert not may_bind_exact_dedup(registry.read_text(encoding="utf-8"))
    shutil.copyfile(registry, tmp_path / "dedup.py")
    done = run(tmp_path, kit.venv / "dedup-harness", "check", "--json", tmp_path / "c.json")
    report = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))["submissions"][0]
    assert done.returncode == 1 and any("exact_dedup" in p for p in report["problems"]), report["problems"]


def test_no_file_of_the_kit_passes_check_as_a_dedup_py(kit: Kit, tmp_path: Path) -> None:
    files = sorted(p for p in (kit.site / "dedup_harness").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    assert len(files) == len([n for n in kit.names if n.startswith("dedup_harness/")])
    candidates = [p for p in files if may_bind_exact_dedup(p.read_text(encoding="utf-8", errors="replace"))]
    assert candidates, "the oracle at least binds exact_dedup: the filter let nothing through"

    def checked(n: int) -> tuple[Path, int, dict[str, Any]]:
        folder = tmp_path / str(n)
        folder.mkdir()
        shutil.copyfile(candidates[n], folder / "dedup.py")
        done = run(folder, kit.venv / "dedup-harness", "check", "--json", folder / "c.json")
        return candidates[n], done.returncode, json.loads((folder / "c.json").read_text(encoding="utf-8"))

    with ThreadPoolExecutor(2) as pool:
        for path, status, written in pool.map(checked, range(len(candidates))):
            report = written["submissions"][0]
            assert status == 1 and report["score"] < report["max_score"], path


def private_functions() -> dict[str, ast.AST]:
    """The reference's functions that are not the contract's surface: its passes and their helpers."""
    tree = ast.parse(REFERENCE_SOURCE.read_text(encoding="utf-8"))
    found: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name not in SURFACE:
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            found[node.name] = node
            found |= {f"{node.name}.{f.name}": f for f in node.body if isinstance(f, ast.FunctionDef)}
    return found


def shape(node: ast.AST) -> str:
    """A function's or class's syntax tree without its name and docstring: what copying it keeps."""
    copy = ast.parse(ast.unparse(node)).body[0]
    if isinstance(copy, (ast.FunctionDef, ast.ClassDef)):
        copy.name = "_"
        body = copy.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            copy.body = body[1:] or [ast.Pass()]
    return ast.dump(copy, annotate_fields=False)


def code_lines(text: str) -> list[str]:
    """The lines of code in ``text``, stripped, comments and blank lines left out."""
    return [
        line.split("  #")[0].strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")
    ]


def windows(lines: list[str]) -> set[tuple[str, ...]]:
    return {tuple(lines[n : n + WINDOW]) for n in range(len(lines) - WINDOW + 1)}


def reference_windows() -> set[tuple[str, ...]]:
    """Every WINDOW consecutive lines of the private code, docstrings left out, the screen's rule set aside."""
    found: set[tuple[str, ...]] = set()
    for node in private_functions().values():
        lines = code_lines(ast.unparse(_without_docstrings(node)))
        found |= windows(lines)
    return {w for w in found if not set(w) <= set(SCREEN_RULE)}


def _without_docstrings(node: ast.AST) -> ast.AST:
    copy = ast.parse(ast.unparse(node))
    for each in ast.walk(copy):
        body = getattr(each, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            each.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
    return copy


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def kit_texts(kit: Kit) -> Iterator[tuple[Path, str]]:
    for path in sorted((kit.site / "dedup_harness").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            yield path, path.read_text(encoding="utf-8", errors="replace")


def test_no_file_carries_the_references_private_passes(kit: Kit) -> None:
    private = private_functions()
    assert {"screen", "confirm", "emit", "spool_documents"} <= set(private)
    shapes = {shape(node): name for name, node in private.items()}
    theirs = reference_windows()
    copied, lines, rule_in = [], [], []
    for path, text in kit_texts(kit):
        if path.suffix == ".py":
            try:
                tree = ast.parse(text)
            except SyntaxError:
                tree = ast.Module(body=[], type_ignores=[])
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and shape(node) in shapes:
                    copied.append(f"{path.name}: {node.name} is the reference's {shapes[shape(node)]}")
        # unparsed, the reference's code is in ast.unparse's spelling: compare a file's lines spelled alike
        spelled = code_lines(_respelled(text)) if path.suffix == ".py" else code_lines(text)
        lines += [f"{path.name}: {w}" for w in windows(spelled) & theirs]
        if windows(spelled) & windows(list(SCREEN_RULE)):
            rule_in.append(path.relative_to(kit.site).as_posix())
    assert copied == [] and lines == []
    assert rule_in == ["dedup_harness/core/judges/expected.py"], "the screen's rule is in the kit there alone"


def _respelled(text: str) -> str:
    try:
        return ast.unparse(ast.parse(text))
    except SyntaxError:
        return text


def test_the_check_of_private_passes_finds_them_where_they_are() -> None:
    """Against the reference itself and a mutant-like copy, the same test finds every pass."""
    text = REFERENCE_SOURCE.read_text(encoding="utf-8")
    shapes = {shape(node) for node in private_functions().values()}
    found = {
        node.name for node in ast.walk(ast.parse(text)) if isinstance(node, ast.FunctionDef) and shape(node) in shapes
    }
    assert {"screen", "confirm", "emit", "spool_documents", "_run"} <= found
    assert windows(code_lines(_respelled(text))) & reference_windows()
    external = DATA_ROOT / "impl_external" / "corpus" / "dedup.py"
    if external.is_file():
        assert windows(code_lines(_respelled(external.read_text(encoding="utf-8")))) & reference_windows()


def test_the_kit_offers_the_students_four_commands_and_each_works(kit: Kit, tmp_path: Path) -> None:
    helped = run(tmp_path, kit.venv / "dedup-harness", "--help")
    assert [c for c in ("check", "start", "tests", "diff", "grade", "verify") if f"    {c} " in helped.stdout] == list(
        STUDENT_COMMANDS
    )
    refused = run(tmp_path, kit.venv / "dedup-harness", "grade", "x")
    assert (refused.returncode, refused.stderr.count("\n")) == (2, 1) and "not in the student kit" in refused.stderr
    started = run(tmp_path, kit.venv / "dedup-harness", "start")
    assert started.returncode == 0 and (tmp_path / "dedup.py").is_file()
    catalogue = " ".join(run(tmp_path, kit.venv / "dedup-harness", "tests").stdout.split())
    assert f"`less {kit.site / 'dedup_harness' / '_data' / 'docs' / 'checks.md'}`" in catalogue, "the kit's pages"
    listed = run(tmp_path, kit.venv / "dedup-harness", "tests", "3")
    assert listed.returncode == 0 and "s04: drops every Bloom positive without confirming it" in listed.stdout
    stub = run(tmp_path, kit.venv / "dedup-harness", "check")
    assert stub.returncode == 1 and "exact_dedup() is not written yet" in stub.stdout
    imported = run(tmp_path, kit.venv / "python", "-c", "import corpus.bloom, corpus.doc, corpus.hashing")
    assert imported.returncode == 0, "the course's modules import as corpus.* in the student's venv"
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "dedup.py").write_text("MINE = 1\n", encoding="utf-8")
    theirs = run(tmp_path, kit.venv / "python", "-c", "import corpus.dedup, corpus.doc; print(corpus.dedup.MINE)")
    assert theirs.stdout == "1\n", "a corpus/ of the student's own joins the course's, ahead of it"
    diffed = run(tmp_path, kit.venv / "dedup-harness", "diff")
    assert diffed.returncode == 2 and "pass --reference FILE" in diffed.stderr
    (tmp_path / "correct").mkdir()
    shutil.copyfile(SAMPLES / "correct_plain.py", tmp_path / "correct" / "dedup.py")
    checked = run(tmp_path / "correct", kit.venv / "dedup-harness", "check")
    assert checked.returncode == 0 and "dedup.py: 14 / 14" in checked.stdout, checked.stdout + checked.stderr
    (tmp_path / "last").mkdir()
    shutil.copyfile(SAMPLES / "keeps_last.py", tmp_path / "last" / "dedup.py")
    buggy = run(tmp_path / "last", kit.venv / "dedup-harness", "check")
    assert buggy.returncode == 1 and "grade names the known mistake" in " ".join(buggy.stdout.split())
    assert "fails like" not in buggy.stdout, "the kit has no mutant to prove a pitfall with"
