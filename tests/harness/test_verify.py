"""verify on a small world: each breach it must report, and a clean run that reports none."""

from __future__ import annotations

import json
import tempfile
import uuid
from pathlib import Path

import pytest

from dedup_harness.core.mutant_roots import copy_root
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.runner import start_fork_server
from dedup_harness.verify.engine import verify
from dedup_harness.verify.matrix import BreachKind
from dedup_harness.verify.targets import Layout
from world import KILL_SETS, add_mutant, edit, make_world


@pytest.fixture
def world(tmp_path: Path) -> Layout:
    return make_world(tmp_path / "world")


def breaches(layout: Layout) -> list[tuple[str, str, str | None]]:
    matrix, _ = verify(layout, jobs=2)
    return [(str(b.kind), b.target, b.check) for b in matrix.breaches]


def test_a_sound_world_verifies_with_no_breach(world: Layout) -> None:
    matrix, spans = verify(world, jobs=2)
    assert matrix.breaches == []
    assert matrix.kill_sets() == KILL_SETS
    assert matrix.row("reference").result is not None
    assert set(matrix.row("reference").result.outcomes.values()) == {Outcome.PASSED}
    assert [span.file for span in spans["s07"]] == ["corpus/dedup.py"]
    assert matrix.idle_checks() == ["test_keys"]


def test_a_weakened_check_lets_its_mutant_survive(world: Layout) -> None:
    edit(world.suite_dir / "test_tiny.py", 'paragraphs("a\\n \\nb")', 'paragraphs("a\\n\\nb")')
    assert ("survivor", "s07", "test_split") in breaches(world)


def test_a_check_that_cannot_fail_stops_verify_at_the_canary(world: Layout) -> None:
    edit(world.suite_dir / "test_tiny.py", '    assert impl.STATS_KEYS[-1] == "docs_out"', "    assert True")
    matrix, _ = verify(world, jobs=2)
    assert [(str(b.kind), b.check) for b in matrix.breaches] == [("canary-survived", "test_keys")]
    assert [row.target.name for row in matrix.rows] == ["canary"], "no other target is judged"


def test_a_diff_that_no_longer_applies_is_a_breach_naming_the_mutant(world: Layout) -> None:
    dedup = world.impl_root / "corpus" / "dedup.py"
    edit(dedup, "return math.exp(-8 * b * LN2**2)", "return math.exp(-b * 8 * LN2**2)")
    matrix, _ = verify(world, jobs=2)
    [breach] = [b for b in matrix.breaches if b.kind is BreachKind.DIFF_DOES_NOT_APPLY]
    assert breach.target == "s08"
    assert "mutant s08" in breach.detail and "no longer applies" in breach.detail
    assert matrix.row("s08").result is None


def test_a_failing_reference_is_a_breach(world: Layout) -> None:
    with open(world.impl_root / "corpus" / "dedup.py", "a", encoding="utf-8") as dedup:
        dedup.write("\nSTATS_KEYS = STATS_KEYS[:-1]\n")
    assert ("reference-failure", "reference", "test_keys") in breaches(world)


def test_a_mutant_that_cannot_be_imported_is_broken_not_killed(world: Layout, tmp_path: Path) -> None:
    add_mutant(world, tmp_path, "s99", "import hashlib\n", "import hashlib\nimport no_such_module\n", "test_keys")
    matrix, _ = verify(world, jobs=2)
    assert [(str(b.kind), b.target) for b in matrix.breaches if b.target == "s99"] == [("broken-mutant", "s99")]
    assert matrix.row("s99").kills() == []


def test_a_check_that_crashes_does_not_kill(world: Layout, tmp_path: Path) -> None:
    line = "    b = bloom_bytes_per_item\n"
    add_mutant(world, tmp_path, "s98", line, line + "    {}[b]  # a KeyError: a crash, not an assertion\n", "test_rate")
    matrix, _ = verify(world, jobs=2)
    assert matrix.row("s98").outcome("test_rate") is Outcome.ERROR
    survivors = [b for b in matrix.breaches if b.kind is BreachKind.SURVIVOR]
    assert [(b.target, b.check) for b in survivors] == [("s98", "test_rate")]
    assert "error, not an assertion failure" in survivors[0].detail


def test_a_stale_committed_kill_matrix_is_a_breach(world: Layout) -> None:
    world.kill_matrix_file.write_text(json.dumps({**KILL_SETS, "s07": ["test_rate"]}), encoding="utf-8")
    assert ("stale-kill-matrix", "s07", None) in breaches(world)


def test_a_missing_kill_matrix_is_a_breach(world: Layout) -> None:
    world.kill_matrix_file.unlink()
    assert ("stale-kill-matrix", "kill_matrix.json", None) in breaches(world)


def test_an_extra_target_gets_a_row_and_no_expectation(world: Layout) -> None:
    matrix, _ = verify(world, extra_roots=(world.impl_root,), jobs=2)
    assert matrix.breaches == []
    assert matrix.row("target").kills() == []


def test_a_check_that_runs_out_of_time_is_a_timeout_not_a_kill(world: Layout, tmp_path: Path) -> None:
    line = "    b = bloom_bytes_per_item\n"
    add_mutant(world, tmp_path, "s97", line, line + "    while b:\n        pass\n", "test_rate")
    matrix, _ = verify(world, jobs=2, check_timeout=1.0)
    assert matrix.row("s97").outcome("test_rate") is Outcome.TIMEOUT
    [survivor] = [b for b in matrix.breaches if b.kind is BreachKind.SURVIVOR]
    assert (survivor.target, survivor.check) == ("s97", "test_rate")
    assert survivor.detail.startswith("timeout, not an assertion failure")


def test_what_a_target_leaves_in_the_temp_folder_goes_with_verify(
    world: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A target that never removes its temp files (a spool, say) leaves nothing behind after verify."""
    prefix = f"left-by-a-target-{uuid.uuid4().hex}-"
    careless = copy_root(world.impl_root, tmp_path / "careless")
    edit(
        careless / "corpus" / "dedup.py",
        "from __future__ import annotations\n",
        f"from __future__ import annotations\nimport tempfile\ntempfile.mkstemp(prefix={prefix!r})\n",
    )
    system_temp, own_temp = Path(tempfile.gettempdir()), tmp_path / "temp"
    own_temp.mkdir()
    start_fork_server()  # multiprocessing's own folder for it lives as long as this process, in the real temp
    monkeypatch.setattr(tempfile, "tempdir", str(own_temp))
    matrix, _ = verify(world, extra_roots=(careless,), jobs=2)
    assert matrix.row("target").result is not None
    assert list(own_temp.iterdir()) == []
    assert list(system_temp.glob(f"{prefix}*")) == []
