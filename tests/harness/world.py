"""A small world for testing verify: a copy of the reference, a three-check suite, two real mutants.

Each test builds its own world under tmp_path and runs verify on it; the checks are tiny, so a run
takes a second or two. The suite uses the project's own conftest (the --impl seam and the profiles).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from dedup_harness.core.mutant_roots import copy_root
from dedup_harness.core.paths import IMPL_ROOT, MUTANTS_DIR, TESTS_DIR
from dedup_harness.verify.targets import Layout
from mutant_diffs import make_diff

CHECKS = ("test_split", "test_rate", "test_keys")

SUITE = """
import math


def test_split(impl):
    assert impl.paragraphs("a\\n \\nb") == ["a", "b"]


def test_rate(impl):
    assert impl.bloom_rate(1) == math.exp(-8 * math.log(2) ** 2)


def test_keys(impl):
    assert impl.STATS_KEYS[-1] == "docs_out"
"""

CATALOGUE = """
[[mutant]]
id = "s07"
title = "split only on \\\\n\\\\n"
pitfall = "splits paragraphs only on blank lines with nothing in them"
files = ["corpus/dedup.py"]
caught_by = ["test_split"]

[[mutant]]
id = "s08"
title = "bytes for bits"
pitfall = "puts bytes where bits belong in the rate"
files = ["corpus/dedup.py"]
caught_by = ["test_rate"]
"""

KILL_SETS = {"s07": ["test_split"], "s08": ["test_rate"]}


def make_world(root: Path) -> Layout:
    copy_root(IMPL_ROOT, root / "impl")
    (root / "tests" / "suite").mkdir(parents=True)
    shutil.copyfile(TESTS_DIR / "conftest.py", root / "tests" / "conftest.py")
    (root / "tests" / "suite" / "test_tiny.py").write_text(SUITE, encoding="utf-8")
    mutants = root / "mutants"
    mutants.mkdir()
    (mutants / "catalogue.toml").write_text(CATALOGUE, encoding="utf-8")
    for name in ("s07", "s08"):
        shutil.copyfile(MUTANTS_DIR / f"{name}.diff", mutants / f"{name}.diff")
    (mutants / "kill_matrix.json").write_text(json.dumps(KILL_SETS), encoding="utf-8")
    return Layout(
        impl_root=root / "impl",
        external_root=None,  # the small world has one implementation
        suite_dir=root / "tests" / "suite",
        mutants_dir=mutants,
        checks=CHECKS,
    )


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def add_mutant(layout: Layout, scratch: Path, mutant_id: str, old: str, new: str, caught_by: str) -> None:
    """A new catalogue entry whose diff replaces ``old`` by ``new`` in corpus/dedup.py."""
    edited = copy_root(layout.impl_root, scratch / mutant_id)
    edit(edited / "corpus" / "dedup.py", old, new)
    diff, _ = make_diff(layout.impl_root, edited)
    (layout.mutants_dir / f"{mutant_id}.diff").write_text(diff, encoding="utf-8")
    with open(layout.mutants_dir / "catalogue.toml", "a", encoding="utf-8") as catalogue:
        catalogue.write(
            f'\n[[mutant]]\nid = "{mutant_id}"\ntitle = "t"\npitfall = "p"\n'
            f'files = ["corpus/dedup.py"]\ncaught_by = ["{caught_by}"]\n'
        )
