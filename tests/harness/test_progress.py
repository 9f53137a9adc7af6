"""The one progress display: what a log gets off a terminal, and nothing at all when quiet."""

from __future__ import annotations

import io

import pytest

from dedup_harness.commands import progress as progress_module
from dedup_harness.commands.progress import Progress


def lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_a_log_gets_a_line_per_phase_and_per_finished_item() -> None:
    out = io.StringIO()
    with Progress("verify", stream=out) as progress:
        progress.phase("suite runs", total=2)
        progress.finished("canary (0.4s)")
        progress.finished("reference (1.2s)")
    assert lines(out) == ["verify: suite runs (2)", "verify: [1/2] canary (0.4s)", "verify: [2/2] reference (1.2s)"]


def test_an_anonymous_count_is_logged_now_and_then_and_once_at_its_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """A million documents are not a million lines: a line every LOG_EVERY seconds, and the last count."""
    clock = iter(range(0, 10_000, 1))
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: float(next(clock)))
    monkeypatch.setattr(progress_module, "LOG_EVERY", 1_000_000.0)
    out = io.StringIO()
    with Progress("dedup", stream=out) as progress:
        progress.phase("spooling", unit="documents read")
        for _ in range(5000):
            progress.advance()
        progress.phase("writing", unit="documents written")
        for _ in range(3):
            progress.advance()
    assert lines(out) == [
        "dedup: spooling",
        "dedup: spooling: 5,000 documents read",
        "dedup: writing",
        "dedup: writing: 3 documents written",
    ]


def test_a_count_kept_elsewhere_is_shown_as_given() -> None:
    out = io.StringIO()
    with Progress("mutation", stream=out) as progress:
        progress.phase("testing mutants", total=10)
        progress.set_count(4, 10)
        assert (progress.done, progress.total) == (4, 10)
    assert lines(out) == ["mutation: testing mutants (10)"]


def test_quiet_shows_nothing() -> None:
    out = io.StringIO()
    with Progress("dedup", quiet=True, stream=out) as progress:
        progress.phase("spooling", unit="documents read")
        progress.advance(5)
        progress.finished("done")
    assert out.getvalue() == ""


def test_an_error_leaves_no_final_count() -> None:
    out = io.StringIO()
    with pytest.raises(RuntimeError), Progress("dedup", stream=out) as progress:
        progress.phase("spooling", unit="documents read")
        progress.advance(7)
        raise RuntimeError("broke")
    assert lines(out) == ["dedup: spooling"]
