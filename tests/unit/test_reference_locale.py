"""The reference's spool is UTF-8 whatever the locale says (a Windows or C-locale machine included)."""

from __future__ import annotations

import locale
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.dedup import exact_dedup
from corpus.doc import Doc


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
    docs = [Doc("é", "Café ☕.\n\n東京."), Doc("dup", "東京.\n\nNaïve.")]
    assert list(exact_dedup(docs, spool_dir=tmp_path)) == [docs[0], Doc("dup", "Naïve.")]
