"""A command's outputs: every path checked before the work starts, the files written last and together.

An output is a file path, a folder (``grade --gradescope``), or ``-`` for standard output, checked as
it is declared, before any work. A regular file, or a new path in a folder that exists, is written
to a part file beside it (made now: the proof the folder takes a new file) and renamed over it on
success: a new file gets the umask's mode, a replaced one keeps its own, a symlink stays a link to
the file replaced. Anything else that is not a folder (a device, a FIFO) is written through, as ``cp``
or ``sort -o`` would. ``commit`` writes the write-through outputs, then the renames; a failure after
a rename removes it again, so a run's files appear together or not at all (but for a file of a folder
output whose name the file system refuses: said once the rest is written). Leaving the ``with`` block
without a commit (an error, Ctrl-C, a signal) removes every part.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from types import TracebackType
from typing import IO

from dedup_harness.core import scratch_dirs, signals
from dedup_harness.grade.reports import names

STDOUT = "-"
NEW_FILE_MODE = 0o666  # less the umask, as open() gives


class OutputError(Exception):
    """An output that cannot be written: the message names the option and the path."""


class How(Enum):
    STDOUT = "standard output"
    REPLACE = "a part file renamed over the target"
    THROUGH = "written through"
    APPEND = "added to the end"


@dataclass
class _Output:
    option: str
    given: str
    how: How
    target: Path
    mode: int | None = None  # REPLACE over an existing file: its mode, kept
    part: Path | None = None  # REPLACE: beside the target; THROUGH or STDOUT: a staged file, if any
    text: str | None = None  # what put() gave: written at commit (into the part, through, or to stdout)
    files: dict[str, str | bytes] | None = None  # a folder output: relative path -> text (or bytes)
    staged: list[tuple[Path, Path]] = field(default_factory=list)  # a folder output's (part, target)
    unwritten: list[str] = field(default_factory=list)  # a folder output's files that could not be made, and why

    def where(self) -> str:
        return f"{self.option} {self.given}"

    def renames(self) -> list[tuple[Path, Path]]:
        if self.how is not How.REPLACE:
            return []
        return self.staged if self.files is not None else [(self.part, self.target)] if self.part else []


@dataclass
class Outputs:
    """One run's outputs, declared (and checked) before the work, committed after it."""

    command: str
    _outputs: dict[str, _Output] = field(default_factory=dict)
    # Does an output go to standard output? Then what is for people goes to stderr. (Kept after the
    # outputs are discarded: commands print their tables once the files are in place.)
    stdout: bool = field(default=False, init=False)

    def __enter__(self) -> Outputs:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.discard()

    # -- declaring, before the work -------------------------------------------------------------

    def file(self, option: str, given: str | Path | None) -> None:
        """Check the output file ``given`` (``-``: standard output; None: not asked for)."""
        if given is None:
            return
        if str(given) == STDOUT:
            self._add(_Output(option, STDOUT, How.STDOUT, Path(STDOUT)))
            return
        output = _plan(option, str(given))
        if output.how is How.REPLACE:
            output.part = _new_part(output.target, output)
        self._add(output)

    def appended(self, option: str, given: str | Path | None) -> None:
        """Check the file ``given`` that the run's text is added to the end of (made when missing).

        For files that several commands write in turn: GitHub's ``$GITHUB_STEP_SUMMARY`` is appended to
        by every command of a step, and writing it afresh would drop what the earlier ones wrote.
        """
        if given is None or str(given) == STDOUT:
            self.file(option, given)
            return
        output = _Output(option, str(given), How.APPEND, Path(given))
        existing = output.target.exists()
        if existing and output.target.is_dir():
            raise OutputError(f"{output.where()}: is a folder")
        if not existing and not output.target.parent.is_dir():
            raise OutputError(f"{output.where()}: no folder {output.target.parent}")
        if not os.access(output.target if existing else output.target.parent, os.W_OK):
            raise OutputError(f"{output.where()}: not writable")
        self._add(output)

    def folder(self, option: str, given: str | Path | None) -> None:
        """Check the output folder ``given``: one that exists, or a new one in a folder that does."""
        if given is None:
            return
        output = _Output(option, str(given), How.REPLACE, Path(given), files={})
        if output.target.exists() and not output.target.is_dir():
            raise OutputError(f"{output.where()}: not a folder")
        home = output.target if output.target.is_dir() else output.target.parent
        if not home.is_dir():
            raise OutputError(f"{output.where()}: no folder {home} to make it in")
        _new_part(home / "probe", output).unlink()  # the proof that files can be made there
        self._add(output)

    def _add(self, output: _Output) -> None:
        for other in self._outputs.values():
            if other.how is not How.STDOUT and output.how is not How.STDOUT and _same(other.target, output.target):
                raise OutputError(f"{other.where()} and {output.where()}: two outputs name the same file")
        self.stdout = self.stdout or output.how is How.STDOUT
        self._outputs[output.option] = output

    # -- filling, during and after the work -----------------------------------------------------

    def put(self, option: str, text: str) -> None:
        """The whole content of output ``option``, written at commit (where a full disk is an OutputError)."""
        self._outputs[option].text = text

    def drop(self, option: str) -> None:
        """Output ``option`` will not be written after all: its part goes, the target stays as it was."""
        output = self._outputs.pop(option, None)
        if output is not None and output.part is not None:
            output.part.unlink(missing_ok=True)

    def put_in_folder(self, option: str, relative: str, text: str | bytes) -> None:
        """One file of folder output ``option``, at ``relative`` inside it."""
        files = self._outputs[option].files
        assert files is not None, f"{option} is not a folder output"
        assert relative not in files, f"{option}: {relative} written twice"  # no result is written over another
        files[relative] = text

    @contextlib.contextmanager
    def stream(self, option: str) -> Iterator[IO[bytes]]:
        """Output ``option`` as a binary stream, written as the work goes (renamed or not at commit)."""
        output = self._outputs[option]
        if output.how is How.STDOUT:
            yield sys.stdout.buffer
            sys.stdout.buffer.flush()
            return
        path = output.part if output.how is How.REPLACE and output.part is not None else output.target
        try:
            stream = open(path, "wb")  # noqa: SIM115 (the with below closes it; only opening is guarded)
        except OSError as exc:
            raise OutputError(f"{output.where()}: {exc.strerror or exc}") from None
        with stream:
            yield stream

    def path(self, option: str) -> Path:
        """A file to write output ``option`` into (for a writer that wants a path); it goes in place at commit."""
        output = self._outputs[option]
        if output.part is None:
            fd, name = tempfile.mkstemp(prefix=scratch_dirs.part_prefix())
            os.close(fd)
            output.part = Path(name)
        return output.part

    # -- the end --------------------------------------------------------------------------------

    def commit(self) -> None:
        """Write through, then rename every part over its target, together; on a failure undo the renames."""
        made: list[Path] = []  # the folders a folder output needed
        current: _Output | None = None
        try:
            for current in self._outputs.values():
                if current.files is not None:
                    _stage_folder(current, made)
                elif current.how is How.REPLACE and current.part is not None and current.text is not None:
                    current.part.write_text(current.text, encoding="utf-8", newline="")
            for current in self._outputs.values():
                if current.how is not How.REPLACE:
                    _write_through(current)
        except BaseException as exc:  # a signal too: no empty folder stays behind
            _undo([], made)
            raise _failed(current, self.command, exc) if isinstance(exc, OSError) else exc from None
        with signals.deferred():  # a signal waits until the renames are all done (or undone)
            renamed: list[Path] = []
            try:
                for current in self._outputs.values():
                    for part, target in current.renames():
                        if current.mode is not None:
                            os.chmod(part, current.mode)
                        os.replace(part, target)
                        renamed.append(target)
            except OSError as exc:
                _undo(renamed, made)
                raise _failed(current, self.command, exc) from None
        unwritten = [f"{out.where()}: {', '.join(out.unwritten)}" for out in self._outputs.values() if out.unwritten]
        if unwritten:
            raise OutputError(f"not written (every other output was): {'; '.join(unwritten)}")

    def discard(self) -> None:
        """Remove every part still there (after a commit: the staged copies; without one: all)."""
        for output in self._outputs.values():
            parts = [part for part, _ in output.staged] + ([output.part] if output.part is not None else [])
            for part in parts:
                with contextlib.suppress(OSError):
                    part.unlink(missing_ok=True)
        self._outputs.clear()


def _undo(renamed: list[Path], made: list[Path]) -> None:
    for path in reversed(renamed):
        with contextlib.suppress(OSError):
            path.unlink()
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()


def _failed(output: _Output | None, command: str, exc: OSError) -> OutputError:
    return OutputError(f"{output.where() if output is not None else command}: {exc.strerror or exc}")


def _stage_folder(output: _Output, made: list[Path]) -> None:
    """Each file of a folder output gets its part, and its folders made (remembered, to undo)."""
    for relative, text in (output.files or {}).items():
        target = output.target / relative
        try:
            for folder in reversed([target.parent, *target.parent.parents]):
                if not folder.exists():
                    folder.mkdir()
                    made.append(folder)
            part = _new_part(target, output)
        except (OSError, OutputError) as exc:  # a name the file system refuses: said, every other file written
            output.unwritten.append(f"{relative} ({getattr(exc, 'strerror', None) or exc})")
            continue
        output.staged.append((part, target))
        part.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))


def _plan(option: str, given: str) -> _Output:
    """How the file ``given`` will be written, or an OutputError saying why it cannot be."""
    path = Path(given)
    # A link to a file (or to nowhere yet) is replaced where it points; a link to anything else, like
    # /dev/stdout (whose target may have no name at all), is opened by its own name and written through.
    resolved = Path(os.path.realpath(path)) if path.is_symlink() else path
    output = _Output(option, given, How.REPLACE, resolved)
    try:
        info = path.stat()
    except FileNotFoundError:
        if not resolved.parent.is_dir():
            raise OutputError(f"{output.where()}: no folder {resolved.parent}") from None
        return output
    except OSError as exc:
        raise OutputError(f"{output.where()}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise OutputError(f"{output.where()}: is a folder")
    if stat.S_ISREG(info.st_mode):
        return output
    output.how, output.target = How.THROUGH, path
    if not os.access(path, os.W_OK):
        raise OutputError(f"{output.where()}: not writable")
    return output


def _new_part(target: Path, output: _Output) -> Path:
    """An empty part file beside ``target``, with the mode ``target`` will have."""
    with contextlib.suppress(OSError):
        if output.files is None and target.is_file():
            output.mode = stat.S_IMODE(target.stat().st_mode)
    # Watched before the part is made: the run's last sweep then removes it, whatever moment a signal
    # comes at (and part files of runs that were killed outright go now).
    scratch_dirs.watch(target.parent)
    for _ in range(100):
        part = target.parent / names.fit(f"{scratch_dirs.part_prefix()}{secrets.token_hex(4)}-{target.name}")
        try:
            fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, NEW_FILE_MODE)
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(f"{output.where()}: cannot write in {target.parent}: {exc.strerror or exc}") from None
        os.close(fd)
        return part
    raise OutputError(f"{output.where()}: cannot make a part file in {target.parent}")


def _write_through(output: _Output) -> None:
    if output.how is How.STDOUT:
        if output.part is not None:
            with open(output.part, "rb") as staged:
                shutil.copyfileobj(staged, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        elif output.text is not None:
            sys.stdout.write(output.text)
            sys.stdout.flush()
        return
    if output.how is How.APPEND:
        with open(output.target, "a", encoding="utf-8", newline="") as out:
            out.write(output.text or "")
        return
    if output.part is not None:
        with open(output.part, "rb") as staged, open(output.target, "wb") as out:
            shutil.copyfileobj(staged, out)
    elif output.text is not None:
        with open(output.target, "w", encoding="utf-8", newline="") as out:
            out.write(output.text)


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def fail(command: str, message: object, status: int = 2) -> int:
    """One plain line on stderr (never wrapped: a path in it stays whole); returns ``status``."""
    print(f"dedup-harness {command}: {message}", file=sys.stderr)
    return status
