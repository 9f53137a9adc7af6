"""A student's submission: find its dedup.py, build its scratch root, and check it before the checks run.

``prepare(path, scratch_dir)`` takes a ``dedup.py`` or a folder holding one (directly, or in the one
subfolder that does: a student who zipped their project folder) and builds
``scratch_dir/root``: a copy of the reference root with the student's ``dedup.py`` in place of the
reference's, byte for byte; with ``own_deps``, their own ``doc.py``, ``hashing.py`` and ``bloom.py``
too, where a ``corpus/`` beside their ``dedup.py`` holds them (``core/impl_roots.py``), each read as
the ``dedup.py`` is. A submission that cannot be graded at all (no such path, no dedup.py, too big,
or holding anything but regular files and folders: ``submitted_files``) raises ``SubmissionError``
with a plain message. A file that does not compile is still prepared: its problem is listed, and every
check then fails on the import. So is one that imports a module the course does not allow
(``import_problems``; the rule: ``worker/imports.py``).

A source is bytes, decoded as Python decodes it (``compile`` of the bytes: a PEP 263 coding cookie, a
UTF-8 byte order mark, UTF-8 otherwise), so the grader judges exactly what the worker imports; one that
does not decode is a compile problem, as it is for Python. Whatever compiling or inspecting a source
raises (a ``RecursionError`` for an expression nested too deeply, the parser's ``MemoryError``) is that
submission's problem, never the grader's.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from dedup_harness.core.impl_roots import own_modules, reference_without_dedup
from dedup_harness.grade import submitted_files
from dedup_harness.grade.submitted_files import MAX_BYTES, SubmissionError
from dedup_harness.grade.worker import imports

__all__ = ["MAX_BYTES", "Problem", "Submission", "SubmissionError", "compile_problems", "import_problems", "prepare"]
SHOWN_LINE = 120  # characters of the line a syntax error is on
NESTED = "the parser or the compiler ran out of room: an expression or a block nested too deeply"
COMPILE = "a source Python cannot compile"  # why a zero, in one phrase, when no line is to blame


@dataclass(frozen=True)
class Problem:
    kind: str  # "syntax", "import" (it cannot be imported, or imports what the course does not allow), "missing",
    # "signature", "files" (a note on the file itself, for staff: a hard link)
    message: str
    cause: str = ""  # the problem in one phrase, as a report says why a submission got nothing


@dataclass
class Submission:
    source: Path  # the dedup.py as given
    root: Path  # the scratch implementation root: corpus/ with the student's dedup.py
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)  # on the file itself, not its code (a hard link)
    own: tuple[str, ...] = ()  # the student's own modules in the root (of impl_roots.OWN_MODULES)
    unused: tuple[str, ...] = ()  # their own modules found beside it and left out (the course's are graded)


def prepare(path: Path, scratch_dir: Path, *, own_deps: bool = False) -> Submission:
    """The submission's scratch root (with the student's own modules when ``own_deps``), and the problems a
    compile finds."""
    source = submitted_files.read(*submitted_files.find(Path(path)))
    found = own_modules(source.path)  # the walk refused any link in the tree: these are regular files in it
    own = {name: submitted_files.read(found[name], ()) for name in found} if own_deps else {}
    root = reference_without_dedup(Path(scratch_dir), {name: module.data for name, module in own.items()})
    (root / "corpus" / "dedup.py").write_bytes(source.data)
    notes = [Problem("files", note) for each in (source, *own.values()) for note in each.notes()]
    problems = compile_problems(source.data) + [
        p for name, module in own.items() for p in compile_problems(module.data, f"{name}.py")
    ]
    unused = tuple(name for name in found if name not in own)
    return Submission(source.path, root, problems, notes, tuple(own), unused)


def source_of(root: Path) -> bytes:
    """The dedup.py of a scratch root, as ``prepare`` wrote it: the submission's bytes."""
    return (root / "corpus" / "dedup.py").read_bytes()


def compile_problems(source: str | bytes, name: str = "dedup.py") -> list[Problem]:
    """The one line that says why ``source`` (the file ``name``) does not compile, as Python would compile it; none
    when it does."""
    try:
        compile(source, name, "exec", dont_inherit=True)
    except SyntaxError as error:  # an undecodable source too: "(unicode error) ..."
        line = (error.text or "").strip()
        shown = f": {line[:SHOWN_LINE]}" if line else ""
        where = f" line {error.lineno}" if error.lineno else ""
        cause = f"syntax error (line {error.lineno})" if error.lineno else "syntax error"
        return [Problem("syntax", f"{name}{where}: {error.msg}{shown}", cause)]
    except RecursionError:
        return [
            Problem("syntax", f"{name} cannot be compiled: {NESTED} (RecursionError)", "nested too deeply to compile")
        ]
    except MemoryError:  # what the parser raises for its own stack overflowing, whatever memory is left
        return [Problem("syntax", f"{name} cannot be compiled: {NESTED} (MemoryError)", "nested too deeply to compile")]
    except Exception as error:  # a null byte (ValueError), or anything else the compiler raises
        return [Problem("syntax", f"{name} cannot be compiled: {type(error).__name__}: {error}", COMPILE)]
    return []


def import_problems(source: str | bytes, allowed: Collection[str], *, then: str = "") -> list[Problem]:
    """One line for each module ``source`` imports that the course does not allow (``allowed``: the modules
    of the packages it does), at its first import; ``then`` is said after each."""
    return [
        Problem("import", f"dedup.py line {each.line} {imports.words(each.top)}{then}", imports.words(each.top))
        for each in imports.refused_imports(source, allowed)
    ]
