"""The isolation this machine offers, probed once: bubblewrap, unshare, and an interpreter the worker can run."""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from dedup_harness.core.paths import DATA_ROOT, PACKAGE_DIR
from dedup_harness.grade.sandbox.users import drop_privileges, is_root


@functools.cache
def bwrap_works() -> bool:
    """Is bubblewrap installed and able to make namespaces here (not inside a locked-down container)?"""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    probe = [bwrap, *system_binds(), "--unshare-net", "--unshare-pid", "--die-with-parent", "/usr/bin/true"]
    return subprocess.run(probe, capture_output=True, timeout=20, check=False).returncode == 0


@functools.cache
def unshare_works() -> bool:
    unshare = shutil.which("unshare")
    if unshare is None or not is_root():
        return False
    with tempfile.TemporaryDirectory() as folder:
        probe = [*unshare_prefix(unshare, [Path(folder)]), "/usr/bin/true"]
        return subprocess.run(probe, capture_output=True, timeout=20, check=False).returncode == 0


def unshare_prefix(unshare: str, hide: Sequence[Path]) -> list[str]:
    """New network, pid and mount namespaces; an empty tmpfs over each folder in ``hide``, then exec."""
    mounts = [f"mount -t tmpfs -o size=4k,mode=0755 hidden {shlex.quote(str(path))}" for path in hide]
    script = " && ".join([*mounts, 'exec "$@"'])
    namespaces = ["--net", "--pid", "--fork", "--kill-child", "--mount", "--propagation", "private"]
    return [unshare, *namespaces, "/bin/sh", "-c", script, "sh"]


def harness_folders(session: Path) -> list[Path]:
    """The harness's own folders (reference, oracle, fixtures, tests), unless the session lies inside one."""
    folders = [path for path in {DATA_ROOT.resolve(), PACKAGE_DIR.resolve()} if not session.is_relative_to(path)]
    # One mount over the outer folder covers the inner one (whose mount point it hides).
    return sorted(
        path for path in folders if not any(path != other and path.is_relative_to(other) for other in folders)
    )


def system_binds() -> list[str]:
    """The read-only system tree the worker needs: /usr and the merged-/usr links."""
    args = ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        top = Path("/") / name
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    return args


@functools.cache
def interpreter(uid: int | None) -> tuple[str, str]:
    """A Python >= 3.11 the worker's user can run (a pyenv under root's 0700 home cannot be), and its version."""
    # A venv's python may sit in a private folder; the interpreter behind it often does not.
    base = getattr(sys, "_base_executable", sys.executable)
    candidates = ["/usr/bin/python3", sys.executable, base, os.path.realpath(base), "/usr/local/bin/python3"]
    candidates.append(shutil.which("python3") or "")
    if uid is None:
        candidates.insert(0, sys.executable)
    check = "import sys, json, resource; print('%d.%d.%d' % sys.version_info[:3]); assert sys.version_info >= (3, 11)"
    for candidate in dict.fromkeys(c for c in candidates if c):
        command = [*drop_privileges(uid), candidate, "-I", "-S", "-c", check]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=20, cwd="/", check=False)
        except OSError:
            continue
        if done.returncode == 0:
            return candidate, done.stdout.strip()
    raise RuntimeError(f"no Python >= 3.11 that uid {uid} can run among {candidates}")
