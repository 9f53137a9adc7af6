"""The wheels a Gradescope bundle carries: exactly the releases installed here, and a lock with their hashes.

A bundle that installed ``hypothesis>=6.108`` from the network when Gradescope builds its image would
grade with whatever release is newest that day, and a Hypothesis release changes what
``derandomize`` draws: an image rebuilt mid-term could regrade the same code differently. So the
bundle carries the wheel of every release in the installed dependency set (``core/provenance.py``)
for the image's Python and platform, the harness's own wheel, and ``requirements.lock``, one
``name==version --hash=sha256:...`` line per wheel; ``setup.sh`` installs them with ``--no-index
--require-hashes``. Gathering them needs pip and its index (the network, or a mirror pip is
configured for); installing them needs neither.
"""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path

from packaging.utils import canonicalize_name, parse_wheel_filename

# Gradescope's images are x86_64 Ubuntu (22.04 by default: glibc 2.35), so manylinux wheels up to
# glibc 2.28 install there; "any" covers pure-Python wheels.
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64", "any")


class WheelsError(RuntimeError):
    """The wheels could not be gathered: the message says which and why (pip's own words, shortened)."""


def gather(dependencies: tuple[str, ...], python: str, source: Path, into: Path) -> None:
    """Download the wheels of ``dependencies`` ("name==version") for CPython ``python`` and build the harness's."""
    into.mkdir(parents=True, exist_ok=True)
    abi = "cp" + python.replace(".", "")
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:"]
    command += ["--python-version", python, "--implementation", "cp", "--abi", abi, "--abi", "abi3", "--abi", "none"]
    command += [part for platform in PLATFORMS for part in ("--platform", platform)]
    _pip([*command, "--dest", str(into), *dependencies], f"download the wheels of {len(dependencies)} releases")
    build_wheel(source, into)
    missing = set(canonicalize_name(d.split("==")[0]) for d in dependencies) - {_name(w) for w in into.glob("*.whl")}
    if missing:
        raise WheelsError(f"no wheel for {', '.join(sorted(missing))} (CPython {python}, {PLATFORMS[0]})")


def build_wheel(source: Path, into: Path) -> Path:
    """The wheel of the source tree ``source``, built into ``into``; its path.

    The build backend, when it is installed here, builds it offline; else pip fetches the backend.
    """
    before = set(into.glob("*.whl"))
    offline = ["--no-build-isolation"] if importlib.util.find_spec("hatchling") else []
    build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", *offline, "-w", str(into), str(source)]
    _pip(build, "build the harness's wheel")
    made = sorted(set(into.glob("*.whl")) - before)
    if len(made) != 1:
        raise WheelsError(f"building {source.name} left {len(made)} new wheels in {into}, not one")
    return made[0]


def lock(wheels: Path) -> str:
    """``requirements.lock``: every wheel in ``wheels`` pinned, with its SHA-256."""
    lines = []
    for wheel in sorted(wheels.glob("*.whl")):
        name, version, _, _ = parse_wheel_filename(wheel.name)
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        lines.append(f"{name}=={version} --hash=sha256:{digest}")
    return "\n".join(lines) + "\n"


def _name(wheel: Path) -> str:
    return str(parse_wheel_filename(wheel.name)[0])


def _pip(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        said = " ".join((done.stderr or done.stdout).split())[-600:]
        raise WheelsError(f"pip could not {what}: {said}")
