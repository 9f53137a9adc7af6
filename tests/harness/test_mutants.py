"""The committed mutants: their diffs apply, touch what the catalogue says, and match the kill matrix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dedup_harness.core.catalogue import CatalogueError, load_catalogue
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.kill_matrix import load_kill_sets
from dedup_harness.core.mutant_roots import DiffDoesNotApply, copy_root, mutant_root
from dedup_harness.core.paths import IMPL_ROOT, MUTANTS_DIR
from mutant_diffs import main as mutants_cli
from mutant_diffs import make_diff

CATALOGUE = load_catalogue()


def test_the_catalogue_holds_s01_to_s15() -> None:
    assert [m.id for m in CATALOGUE] == [f"s{n:02}" for n in range(1, 16)]


@pytest.mark.parametrize("mutant", CATALOGUE, ids=[m.id for m in CATALOGUE])
def test_each_diff_applies_and_touches_exactly_its_catalogued_files(mutant, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = mutant_root(mutant, tmp_path / mutant.id)
    diff, touched = make_diff(IMPL_ROOT, root)
    assert touched == list(mutant.files)
    body = mutant.diff.read_text(encoding="utf-8")
    assert body.startswith(f"# {mutant.id}: {mutant.title}\n# pitfall: {mutant.pitfall}\n")
    assert body.endswith(diff), "the committed diff is what `refresh` would write"


def test_a_diff_that_no_longer_applies_raises_an_error_naming_the_mutant(tmp_path: Path) -> None:
    reference = copy_root(IMPL_ROOT, tmp_path / "reference")
    dedup = reference / "corpus" / "dedup.py"
    dedup.write_text(dedup.read_text().replace("occurrences.sort()", "occurrences.sort(key=None)"))
    s05 = next(m for m in CATALOGUE if m.id == "s05")
    with pytest.raises(DiffDoesNotApply, match="mutant s05: its diff no longer applies"):
        mutant_root(s05, tmp_path / "s05", reference)


def test_the_committed_kill_matrix_names_every_mutant_and_includes_its_catching_checks() -> None:
    kill_sets = load_kill_sets()
    assert sorted(kill_sets) == [m.id for m in CATALOGUE]
    for mutant in CATALOGUE:
        assert set(mutant.caught_by) <= kill_sets[mutant.id] <= set(CHECKS), mutant.id


def test_a_catalogue_entry_naming_an_unknown_check_is_refused(tmp_path: Path) -> None:
    (tmp_path / "s01.diff").write_text((MUTANTS_DIR / "s01.diff").read_text())
    entry = 'id = "s01"\ntitle = "t"\npitfall = "p"\nfiles = ["corpus/dedup.py"]\ncaught_by = ["test_nothing"]\n'
    (tmp_path / "catalogue.toml").write_text("[[mutant]]\n" + entry)
    with pytest.raises(CatalogueError, match=r"mutant 's01': caught_by names unknown checks \['test_nothing'\]"):
        load_catalogue(tmp_path)


def test_checkout_then_refresh_rewrites_the_same_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mutants = tmp_path / "mutants"
    shutil.copytree(MUTANTS_DIR, mutants)
    before = (mutants / "s05.diff").read_text()
    (mutants / "s05.diff").write_text("# s05: stale\n")
    assert mutants_cli(["--mutants-dir", str(mutants), "checkout", "s05", str(tmp_path / "s05")]) == 0
    assert "the bare reference" in capsys.readouterr().out, "a diff that does not apply leaves the bare reference"
    dedup = tmp_path / "s05" / "corpus" / "dedup.py"
    lines = dedup.read_text().splitlines(keepends=True)
    dedup.write_text("".join(line for line in lines if not line.startswith("    occurrences.sort()")))
    assert mutants_cli(["--mutants-dir", str(mutants), "refresh", "s05", str(tmp_path / "s05")]) == 0
    assert mutants_cli(["--mutants-dir", str(mutants), "check"]) == 0
    assert (mutants / "s05.diff").read_text() == before, "the same edit gives back the committed diff"
