"""The student kit (``dedup-harness student-kit DIR``): the wheel staff hand students, with no implementation of the
module inside it.

It holds what ``check``, ``start``, ``tests`` and ``diff`` need and nothing else: the suite and the
oracle, the fixture, the course's earlier modules (``doc``, ``hashing``, ``bloom``) and the contract's
signatures (``dedup.pyi``), the catalogue's words and the measured kill sets (names, no code), the
docs, and the harness modules those four commands import. Its files are chosen by rule, not listed by
hand, so a module added later is in or out by what it is:

- the harness's modules are those the four commands and the suite import, followed through their
  imports with ``ast`` (``import_closure``), with the data files of their packages (a report's
  schema); a module no import reaches (verify, mutation, the Bloom audit, the bundles) stays out;
- of the data, ``KIT_DATA`` says which files go; above all never ``impl/corpus/dedup.py`` (the
  reference), ``impl_external/`` (a second complete stage), a mutant's diff or the canary (the
  reference with one pitfall, or wrong on purpose: implementations too), ``tests/harness/`` (the
  sample, refused and hostile submissions) or the benchmarks.

The kit's mark (``core/paths.KIT_MARK``) makes its command line offer the four commands only. The
wheel is built like the Gradescope bundle's, from a source tree staged in scratch
(``source_tree.py``), its version the harness's with the local label ``+student``. The kit's test
(``tests/harness/test_student_kit.py``) installs it in a fresh venv and proves that no file in it
passes ``check`` as a dedup.py and none carries the reference's private passes.
"""

from __future__ import annotations

import ast
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from dedup_harness import __version__
from dedup_harness.core import scratch_dirs
from dedup_harness.core.impl_roots import OWN_MODULES
from dedup_harness.core.paths import DATA_ROOT, HOLDS_BACK_MARK, IMPL_ROOT, KIT_MARK, OWN_DEPS_MARK, PACKAGE_DIR
from dedup_harness.distribution import bundle_wheels, source_tree

HARNESS = "dedup_harness"
VERSION = f"{__version__}+student"
# Where the closure of imports starts: the four commands (the console script imports one by name) and the
# suite, whose conftest and checks the installed pytest imports.
ENTRY_MODULES = (
    "cli.py",
    "commands/check.py",
    "commands/start.py",
    "commands/tests.py",
    "commands/diff.py",
    "core/impl_under_test.py",  # the suite's pytest11 entry point
)
SUITE_FILES = ("tests/conftest.py", "tests/suite")
# The data the kit carries, as (folder or file under the data root, the names it takes there).
KIT_DATA: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("impl/corpus", ("__init__.py", "doc.py", "hashing.py", "bloom.py", "dedup.pyi")),
    ("oracle", ("__init__.py",)),
    ("tests", ("conftest.py",)),
    ("tests/suite", ("*.py",)),
    ("fixtures/data.03", ("*",)),
    ("mutants", ("catalogue.toml", "kill_matrix.json")),
    ("docs", ("*.md",)),
)
# The kit's code a dedup.py could be assembled from (the oracle, judges, trusted replay, sizing): grade --similarity.
CODE = ("_data/oracle/", "core/judges/", "core/reference.py", "core/bloom_sizing.py")
README = """# The dedup-harness student kit

`pip install dedup_harness-*.whl`, then from the folder of your `dedup.py`:

- `dedup-harness start`: writes the stub `dedup.py` you start from;
- `dedup-harness tests` (and `tests N`): the checks, what each asserts and why it matters;
- `dedup-harness check`: every check on your code, with the report `grade` gives;
- `dedup-harness diff --reference FILE`: your functions beside the reference's, once staff release it.

The kit holds the course's checks, its oracle and its earlier modules, and no implementation of
`corpus.dedup`.
"""
MARK = (
    "The dedup-harness student kit: the commands check, start, tests and diff, the suite, the oracle, the fixture,\n"
    "the course's doc, hashing and bloom, and no implementation of corpus.dedup.\n"
)


def import_closure(entries: Iterable[Path], package_dir: Path = PACKAGE_DIR) -> set[Path]:
    """Every module of the harness package that ``entries`` import, themselves included (for harness modules), with
    the ``__init__.py`` of every package on the way; imports inside functions count too."""
    found: set[Path] = set()
    todo = list(entries)
    while todo:
        path = todo.pop()
        if path in found:
            continue
        if path.is_relative_to(package_dir):
            found.add(path)
        for module in _imported(path, package_dir):
            todo += [m for m in module if m not in found]
    return found


def _imported(path: Path, package_dir: Path) -> Iterator[list[Path]]:
    """The harness modules ``path`` imports, each as the files that importing it runs (its packages' ``__init__``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, path, package_dir)
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)] if base else []
        else:
            continue
        for name in names:
            files = _files_of(name, package_dir)
            if files:
                yield files


def _absolute(node: ast.ImportFrom, path: Path, package_dir: Path) -> str:
    """The module an ImportFrom names, absolute ("" when a relative one leaves the harness)."""
    if not node.level:
        return node.module or ""
    if not path.is_relative_to(package_dir):
        return ""
    parts = [HARNESS, *path.relative_to(package_dir).with_suffix("").parts][: -node.level]
    return ".".join([*parts, *([node.module] if node.module else [])])


def _files_of(name: str, package_dir: Path) -> list[Path]:
    """The files importing harness module ``name`` runs: each package's ``__init__.py`` and the module itself."""
    parts = name.split(".")
    if parts[0] != HARNESS:
        return []
    files = []
    folder = package_dir
    for part in parts[1:]:
        init = folder / "__init__.py"
        if init.is_file():
            files.append(init)
        if (folder / f"{part}.py").is_file():
            return [*files, folder / f"{part}.py"]
        folder = folder / part
        if not folder.is_dir():
            return files  # an attribute of the module or package before it
    return [*files, folder / "__init__.py"] if (folder / "__init__.py").is_file() else files


def harness_files() -> list[Path]:
    """The harness's files the kit carries: the import closure of its commands and the suite, and the data files
    beside those modules (a report's schema), in sorted order."""
    suite = [DATA_ROOT / "tests" / "conftest.py", *sorted((DATA_ROOT / "tests" / "suite").glob("*.py"))]
    modules = import_closure([*(PACKAGE_DIR / entry for entry in ENTRY_MODULES), *suite])
    folders = {path.parent for path in modules}
    data = {
        p for folder in folders for p in source_tree.files_under(folder) if p.suffix != ".py" and p.parent == folder
    }
    return sorted(modules | data)


def data_files() -> list[tuple[str, Path]]:
    """(path under ``_data/``, file on disk) for the data the kit carries (``KIT_DATA``)."""
    chosen = []
    for folder, patterns in KIT_DATA:
        for pattern in patterns:
            for path in sorted((DATA_ROOT / folder).glob(pattern)):
                if path.is_file():
                    chosen.append((f"{folder}/{path.name}", path))
    return chosen


HOLDS_BACK = "This course grades on cases it holds back as well as on those check runs. No seed is here.\n"
OWN_DEPS = "This course grades dedup.py with the student's own doc.py, hashing.py and bloom.py beside it.\n"


def kit_files(*, holds_back: bool = False, own_deps: bool = False) -> list[tuple[str, Path | bytes]]:
    """Every file of the kit's source tree: the harness's modules, the data, the kit's mark, and the marks of what
    the course decided: ``holds_back`` (it grades on cases it holds back) and ``own_deps`` (whose modules)."""
    files: list[tuple[str, Path | bytes]] = [
        (f"{HARNESS}/{path.relative_to(PACKAGE_DIR).as_posix()}", path) for path in harness_files()
    ]
    files += [(f"{HARNESS}/_data/{name}", path) for name, path in data_files()]
    files.append((f"{HARNESS}/_data/{KIT_MARK}", MARK.encode()))
    # ``import corpus`` in the student's venv: the course's three as a namespace package, which a corpus/ folder of
    # the student's own (their dedup.py, their modules) joins ahead of it, or replaces where it has an __init__.py
    files += [(f"corpus/{name}.py", IMPL_ROOT / "corpus" / f"{name}.py") for name in OWN_MODULES]
    marks = ((HOLDS_BACK_MARK, HOLDS_BACK, holds_back), (OWN_DEPS_MARK, OWN_DEPS, own_deps))
    return files + [(f"{HARNESS}/_data/{mark}", words.encode()) for mark, words, made in marks if made]


def code_files() -> list[tuple[str, str]]:
    """(name in the kit, text) of each of its Python files that ``CODE`` names."""
    found = [(name.removeprefix(f"{HARNESS}/"), path) for name, path in kit_files() if isinstance(path, Path)]
    return [(name, path.read_text("utf-8")) for name, path in found if name.startswith(CODE) and name.endswith(".py")]


def build(out: Path, *, holds_back: bool = False, own_deps: bool = False) -> Path:
    """Build the kit's wheel into the folder ``out`` (made if missing); its path there. ``holds_back``: the course
    grades with a seed of its own (``grade --hidden-seed``), which the kit never holds; ``own_deps``: with the
    student's own modules (``grade --own-deps``)."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=scratch_dirs.prefix("kit")) as scratch:
        source = Path(scratch) / "dedup-harness-student-kit"
        source_tree.stage_source(
            source, kit_files(holds_back=holds_back, own_deps=own_deps), readme=README, version=VERSION, plugin=True
        )
        wheel = bundle_wheels.build_wheel(source, Path(scratch) / "dist")
        target = out / wheel.name
        part = out / f".{wheel.name}.part"
        part.write_bytes(wheel.read_bytes())
        part.replace(target)
    return target
