"""Survivors reviewed as equivalent: stable keys for mutmut's mutants, and the file that lists them.

mutmut numbers a mutant within its function (``corpus.dedup.x_emit__mutmut_7``), and the number shifts
with every edit; a reviewed equivalent is keyed instead by the function and a hash of the removed and
added lines of its diff, indentation stripped. The file is TOML, one line per equivalent, its diff's
lines as a comment above it, so each reason stands next to what it excuses::

    [equivalent]
    # corpus.bloom.bits_for:  -return max(1, ...)  +return max(2, ...)
    "corpus.bloom.bits_for:0123456789ab" = "m is at least 80 whenever ..."
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

CLASS_SEPARATOR = "ǁ"  # mutmut mangles a method as ``xǁClassǁmethod``
KEY_PATTERN = re.compile(r"^[A-Za-z_][\w.]*:[0-9a-f]{12}$")
PLACEHOLDER = "WHY NO INPUT CAN TELL THIS MUTANT FROM THE REFERENCE"


class EquivalentsError(Exception):
    """The equivalents file cannot be read: the message names the file and the entry."""


def function_of(mutant_name: str) -> str:
    """The dotted name of the function a mutant changes.

    >>> function_of("corpus.bloom.xǁBloomFilterǁ__init____mutmut_5")
    'corpus.bloom.BloomFilter.__init__'
    """
    mangled, marker, _ = mutant_name.partition("__mutmut_")
    if not marker:
        raise ValueError(f"not a mutmut mutant name: {mutant_name!r}")
    module, _, function = mangled.rpartition(".")
    if function.startswith("x" + CLASS_SEPARATOR):
        _, cls, method = function.split(CLASS_SEPARATOR)
        return f"{module}.{cls}.{method}"
    if function.startswith("x_"):
        return f"{module}.{function[2:]}"
    raise ValueError(f"not a mutmut mutant name: {mutant_name!r}")


def changed_lines(diff: str) -> list[str]:
    """The removed and added lines of a unified diff, signs kept, indentation and file headers dropped."""
    lines = []
    for line in diff.splitlines():
        if line.startswith(("---", "+++")) or not line.startswith(("-", "+")):
            continue
        lines.append(line[0] + line[1:].strip())
    return lines


def mutant_key(mutant_name: str, diff: str) -> str:
    """``function:hash``: stable across renumbering and across edits elsewhere in the function."""
    digest = hashlib.sha256("\n".join(changed_lines(diff)).encode("utf-8")).hexdigest()
    return f"{function_of(mutant_name)}:{digest[:12]}"


def paste_lines(key: str, diff: str) -> str:
    """The entry a reviewer pastes under ``[equivalent]`` once they have written the reason."""
    function = key.rpartition(":")[0]
    comment = "  ".join(changed_lines(diff))
    return f"# {function}:  {comment}\n{json.dumps(key)} = {json.dumps(PLACEHOLDER)}"


@dataclass(frozen=True)
class Equivalents:
    """The reviewed equivalents: the reason for each key."""

    path: Path
    reason_by_key: dict[str, str]


def load_equivalents(path: Path) -> Equivalents:
    """Read and check the file: every key well formed, every reason one reviewed line."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EquivalentsError(f"{path}: no such equivalents file") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise EquivalentsError(f"{path}: {exc}") from None
    unknown = sorted(set(data) - {"equivalent"})
    if unknown:
        raise EquivalentsError(f"{path}: unknown table(s) {unknown}; only [equivalent] belongs here")
    table = data.get("equivalent", {})
    if not isinstance(table, dict):
        raise EquivalentsError(f"{path}: `equivalent` must be a table of key = reason lines")
    for key, reason in table.items():
        if not KEY_PATTERN.match(key):
            raise EquivalentsError(f"{path}: {key!r} is not a key like 'corpus.dedup.emit:0123456789ab'")
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason:
            raise EquivalentsError(f"{path}: {key!r} needs its reason as one line of text")
        if reason.strip() == PLACEHOLDER:
            raise EquivalentsError(f"{path}: {key!r} still holds the placeholder; write why it is equivalent")
    return Equivalents(path, dict(table))
