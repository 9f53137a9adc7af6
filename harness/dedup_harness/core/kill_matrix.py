"""The committed kill matrix, ``mutants/kill_matrix.json``: each mutant's measured kill set.

``{mutant id: sorted checks it fails}``, written by ``verify --write-kill-matrix`` and compared by
every verify run with what it measured; the grader reads it to say which pitfall a submission's
failures look like. This module is the file's one home: its name, where it lives, its format.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from dedup_harness.core.paths import MUTANTS_DIR

FILE_NAME = "kill_matrix.json"


def kill_matrix_path(mutants_dir: Path = MUTANTS_DIR) -> Path:
    return mutants_dir / FILE_NAME


def read_kill_matrix(path: Path) -> dict[str, list[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(c, str) for c in v) for k, v in data.items()
    ):
        raise ValueError(f"{path}: expected {{mutant id: [check, ...]}}")
    return {k: list(v) for k, v in data.items()}


def load_kill_sets(mutants_dir: Path = MUTANTS_DIR) -> dict[str, frozenset[str]]:
    """The committed kill sets: mutant id -> the checks it fails (for the grader's "fails like s04")."""
    return {name: frozenset(checks) for name, checks in read_kill_matrix(kill_matrix_path(mutants_dir)).items()}


def kill_matrix_text(kill_sets: Mapping[str, Sequence[str]]) -> tuple[dict[str, list[str]], str]:
    """The kill sets sorted by mutant, and the file's text for them."""
    measured = {name: sorted(checks) for name, checks in sorted(kill_sets.items())}
    return measured, json.dumps(measured, indent=2) + "\n"
