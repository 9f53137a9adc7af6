"""Where a mutant's hunks sit on the reference: tight spans, no trailing newline, no unchanged line inside."""

from __future__ import annotations

from pathlib import Path

import pytest

from dedup_harness.core.catalogue import load_catalogue
from dedup_harness.core.mutant_roots import mutant_root
from dedup_harness.core.paths import IMPL_ROOT, MUTANTS_DIR
from dedup_harness.verify.spans import Span, text_spans

BEFORE = "import os\n\ndef f(run):\n    first, *repeats = run\n    return first\n"


def offset(text: str, line: int, column: int) -> int:
    """The index in ``text`` of a 1-based line and column."""
    return sum(len(piece) for piece in text.splitlines(keepends=True)[: line - 1]) + column - 1


def old_text(text: str, span: Span) -> str:
    """The characters of ``text`` the span covers."""
    return text[offset(text, span.start_line, span.start_column) : offset(text, span.end_line, span.end_column)]


def apply(text: str, spans: list[Span]) -> str:
    """``text`` with every span's characters replaced, last span first."""
    for span in reversed(spans):
        begin, end = offset(text, span.start_line, span.start_column), offset(text, span.end_line, span.end_column)
        text = text[:begin] + span.replacement + text[end:]
    return text


def test_a_swap_inside_a_line_covers_only_the_swapped_words() -> None:
    after = BEFORE.replace("first, *repeats = run", "*repeats, first = run")
    [span] = text_spans("f.py", BEFORE, after)
    assert (span.start_line, span.start_column, span.end_line, span.end_column) == (4, 5, 4, 20)
    assert (old_text(BEFORE, span), span.replacement) == ("first, *repeats", "*repeats, first")


@pytest.mark.parametrize(
    ("label", "after"),
    [
        ("a line added", BEFORE.replace("import os\n", "import os\nimport shutil\n")),
        ("a line removed", BEFORE.replace("    return first\n", "")),
        ("a line grown into two", BEFORE.replace("    return first\n", "    x = first\n    return x\n")),
    ],
)
def test_a_replacement_never_ends_with_a_line_break_and_applies_back(label: str, after: str) -> None:
    spans = text_spans("f.py", BEFORE, after)
    assert len(spans) == 1, label
    assert not spans[0].replacement.endswith("\n")
    assert apply(BEFORE, spans) == after


def test_two_changes_with_an_unchanged_line_between_are_two_hunks() -> None:
    after = BEFORE.replace("import os", "import sys").replace("return first", "return None")
    spans = text_spans("f.py", BEFORE, after)
    assert [(s.start_line, s.end_line) for s in spans] == [(1, 1), (5, 5)]
    assert all("def f" not in old_text(BEFORE, s) for s in spans)
    assert apply(BEFORE, spans) == after


def test_every_catalogued_mutant_is_placed_in_spans_that_rebuild_it(tmp_path: Path) -> None:
    """s06 now changes one line of one file: one span, so one entry in the Stryker report."""
    for mutant in load_catalogue(MUTANTS_DIR):
        root = mutant_root(mutant, tmp_path / mutant.id, IMPL_ROOT)
        for name in mutant.files:
            before = (IMPL_ROOT / name).read_text(encoding="utf-8")
            after = (root / name).read_text(encoding="utf-8")
            spans = text_spans(name, before, after)
            assert spans and apply(before, spans) == after, mutant.id
            assert not any(s.replacement.endswith("\n") for s in spans), mutant.id
    s06 = next(m for m in load_catalogue(MUTANTS_DIR) if m.id == "s06")
    assert list(s06.files) == ["corpus/bloom.py"]
