"""The reference's spool: where it lives while the stage runs, and that it is UTF-8 whatever the locale."""

from __future__ import annotations

import json
import locale
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.dedup import exact_dedup
from corpus.doc import Doc

DOCS = [Doc("é", "Café ☕.\n\n東京."), Doc("dup", "東京.\n\nNaïve.", {"note": "ü"})]


@pytest.fixture
def ascii_locale() -> Iterator[None]:
    """The C locale for character types: files opened without an encoding read and write ASCII."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


def test_non_ascii_text_comes_back_under_an_ascii_locale(ascii_locale: None, tmp_path: Path) -> None:
    assert list(exact_dedup(DOCS, spool_dir=tmp_path)) == [DOCS[0], Doc("dup", "Naïve.", {"note": "ü"})]


def test_while_the_stage_runs_its_spool_is_one_named_folder_of_json_lines_and_digests(tmp_path: Path) -> None:
    stage = exact_dedup(iter(DOCS), spool_dir=tmp_path)
    next(stage)
    (folder,) = tmp_path.iterdir()
    assert folder.name.startswith("exact-dedup-")
    assert sorted(p.name for p in folder.iterdir()) == ["digests.bin", "docs.jsonl"]
    lines = (folder / "docs.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["é", "dup"]
    assert (folder / "digests.bin").stat().st_size == 4 * (32 + 8 + 4)  # (digest, i, j) per paragraph
    stage.close()
