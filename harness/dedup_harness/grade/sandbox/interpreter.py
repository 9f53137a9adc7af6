"""The worker's interpreter: a Python >= 3.11 that the worker's user can run, by its real path.

A venv's ``bin/python3`` is a symbolic link into the venv's folder, which no sandbox shows; a pyenv
under root's 0700 home cannot be run by the worker's uid; a base image's ``/usr/bin/python3`` may be
older than the language level submissions are written for. So each candidate is resolved to its
real file and run once, as the worker's user, with ``-I -S`` (the standard library alone, as the
worker runs): the first that answers with a version >= 3.11 is the worker's. The grader's own
interpreter comes first, so the worker speaks the grader's Python where it can.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.grade.sandbox.users import drop_privileges

MINIMUM = (3, 11)
_ASK = (
    "import importlib.machinery, json, sys; print(json.dumps({'version': list(sys.version_info[:3]), "
    "'prefix': sys.base_prefix, 'suffixes': importlib.machinery.EXTENSION_SUFFIXES}))"
)


class InterpreterError(RuntimeError):
    """No candidate will do; the message says what each one lacked."""


@dataclass(frozen=True)
class Interpreter:
    path: str  # the real file: never a venv's link
    version: str = ""  # "3.11.2"; empty when the caller named the interpreter and it was not asked
    suffixes: tuple[str, ...] = ()  # the extension modules it loads (".cpython-311-x86_64-linux-gnu.so"...), if asked

    @property
    def prefix(self) -> Path:
        """The installation the interpreter runs from (its standard library is under it)."""
        return Path(self.path).parent.parent


def candidates() -> list[str]:
    """Interpreters worth asking, the grader's own first, each by its real path, without repeats."""
    names = [getattr(sys, "_base_executable", ""), sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"]
    names += [shutil.which(f"python3.{minor}") or "" for minor in range(14, MINIMUM[1] - 1, -1)]
    names.append(shutil.which("python3") or "")
    return list(dict.fromkeys(os.path.realpath(name) for name in names if name))


def ask(path: str, uid: int | None) -> Interpreter | str:
    """The interpreter at ``path`` as the worker's user sees it, or why it will not do."""
    command = [*drop_privileges(uid), path, "-I", "-S", "-c", _ASK]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=20, cwd="/", check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{path}: cannot be run ({error})"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return f"{path}: cannot be run by {'uid ' + str(uid) if uid is not None else 'this user'} ({last})"
    found = json.loads(done.stdout)
    version = tuple(found["version"])
    if os.path.realpath(found["prefix"]) != str(Path(path).parent.parent):
        # Its own installation is out of the user's reach and it fell back on another (a pyenv binary
        # under root's home runs the system's libpython): nothing a sandbox could show it as it is.
        return f"{path}: runs from {found['prefix']}, not from its own installation, as that user"
    if version < MINIMUM:
        return f"{path}: Python {'.'.join(map(str, version))} is older than {'.'.join(map(str, MINIMUM))}"
    return Interpreter(path, ".".join(map(str, version)), tuple(found["suffixes"]))


@functools.cache
def find(uid: int | None) -> Interpreter:
    """The first candidate that will do for a worker running as ``uid`` (None: the grader's own)."""
    reasons = []
    for path in candidates():
        found = ask(path, uid)
        if isinstance(found, Interpreter):
            return found
        reasons.append(found)
    raise InterpreterError(
        "no Python >= 3.11 that the worker's user can run: " + "; ".join(reasons) + ". Install one where every "
        "user can run it (e.g. apt-get install python3.11), or name it with --worker-python"
    )
