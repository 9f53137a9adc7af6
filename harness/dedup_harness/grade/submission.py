"""A student's submission: find its dedup.py, build its scratch root, and check it before the checks run.

``prepare(path, scratch_dir)`` takes a ``dedup.py`` or a folder holding one (directly, or in the one
subfolder that does: a student who zipped their project folder) and builds
``scratch_dir/root``: a copy of the reference root with the student's ``dedup.py`` in place of the
reference's; with ``own_deps``, their own ``doc.py``, ``hashing.py`` and ``bloom.py`` too, where a
``corpus/`` beside their ``dedup.py`` holds them (``core/impl_roots.py``), each read as the
``dedup.py`` is. A submission that cannot be graded at all (no such path, no dedup.py, too big, not
UTF-8, a symbolic link) raises ``SubmissionError`` with a plain message. A file that does not compile
is still prepared: its problem is listed, and every check then fails on the import. So is one that
imports a module the course does not allow (``import_problems``; the rule: ``worker/imports.py``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from dedup_harness.core.impl_roots import own_modules, reference_without_dedup
from dedup_harness.grade.worker import imports

MAX_BYTES = 1 << 20


class SubmissionError(Exception):
    """The path given cannot be graded at all; the message says why in plain words, ``cause`` in one phrase."""

    def __init__(self, message: str, cause: str = "") -> None:
        super().__init__(message)
        self.cause = cause or message.rpartition(": ")[2]


@dataclass(frozen=True)
class Problem:
    kind: str  # "syntax", "import" (it cannot be imported, or imports what the course does not allow), "missing",
    # "signature"
    message: str
    cause: str = ""  # the problem in one phrase, as a report says why a submission got nothing


@dataclass
class Submission:
    source: Path  # the dedup.py as given
    root: Path  # the scratch implementation root: corpus/ with the student's dedup.py
    problems: list[Problem] = field(default_factory=list)
    own: tuple[str, ...] = ()  # the student's own modules in the root (of impl_roots.OWN_MODULES)
    unused: tuple[str, ...] = ()  # their own modules found beside it and left out (the course's are graded)


def find_dedup(path: Path) -> Path:
    if path.is_symlink():
        raise SubmissionError(f"{path}: a symbolic link; submit the file itself")
    if not path.exists():
        raise SubmissionError(f"{path}: no such file or folder")
    if path.is_dir():
        found = path / "dedup.py"
        if not found.is_file():
            return find_dedup(_one_folder_down(path))
        return find_dedup(found)
    if path.suffix != ".py":
        raise SubmissionError(f"{path}: not a Python file (a submission is a dedup.py or a folder holding one)")
    return path


def _one_folder_down(path: Path) -> Path:
    """The dedup.py of the one subfolder that holds one (a zipped project folder); else why there is none."""
    below = sorted(p for p in path.glob("*/dedup.py") if not p.parent.name.startswith((".", "__MACOSX")))
    if len(below) == 1:
        return below[0]
    if below:
        where = ", ".join(str(p.relative_to(path)) for p in below[:5])
        raise SubmissionError(f"{path}: the folder holds no dedup.py but several folders in it do ({where})")
    others = sorted(p.name for p in path.glob("*.py"))[:5]
    hint = f" (it holds {', '.join(others)})" if others else ""
    raise SubmissionError(f"{path}: the folder holds no dedup.py{hint}")


def read_source(path: Path) -> str:
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise SubmissionError(f"{path}: {size} bytes, over the {MAX_BYTES >> 10} KiB a dedup.py may have")
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SubmissionError(f"{path}: not UTF-8 text (byte {error.start} is {data[error.start]:#04x})") from None


def prepare(path: Path, scratch_dir: Path, *, own_deps: bool = False) -> Submission:
    """The submission's scratch root (with the student's own modules when ``own_deps``), and the problems a
    compile finds."""
    source_path = find_dedup(Path(path))
    source = read_source(source_path)
    found = own_modules(source_path)
    own = {name: read_source(found[name]) for name in found} if own_deps else {}
    root = reference_without_dedup(Path(scratch_dir), own)
    (root / "corpus" / "dedup.py").write_text(source, encoding="utf-8")
    problems = compile_problems(source) + [
        p for name, text in own.items() for p in compile_problems(text, f"{name}.py")
    ]
    unused = tuple(name for name in found if name not in own)
    return Submission(source_path, root, problems, tuple(own), unused)


def compile_problems(source: str, name: str = "dedup.py") -> list[Problem]:
    try:
        compile(source, name, "exec", dont_inherit=True)
    except SyntaxError as error:
        line = (error.text or "").strip()
        shown = f": {line[:120]}" if line else ""
        return [
            Problem("syntax", f"{name} line {error.lineno}: {error.msg}{shown}", f"syntax error (line {error.lineno})")
        ]
    except ValueError as error:  # e.g. a null byte in the source
        return [Problem("syntax", f"{name} cannot be compiled: {error}", "a source Python cannot compile")]
    return []


def import_problems(source: str, allowed: Collection[str], *, then: str = "") -> list[Problem]:
    """One line for each module ``source`` imports that the course does not allow (``allowed``: the modules
    of the packages it does), at its first import; ``then`` is said after each."""
    return [
        Problem("import", f"dedup.py line {each.line} {imports.words(each.top)}{then}", imports.words(each.top))
        for each in imports.refused_imports(source, allowed)
    ]
