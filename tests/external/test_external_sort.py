"""The external-sort implementation (impl_external/): its sorted runs and merges, the order of its marks,
its cleanup, a full disk, and its equality with the reference on random corpora.

Both implementations are loaded each with its own ``corpus`` package (``dedup_harness.core.reference``),
so these tests run the same whichever root ``--impl`` names. Each yields its own ``Doc`` class, so
outputs are compared as (id, text, meta) rows.
"""

from __future__ import annotations

import errno
import heapq
import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.doc import Doc
from dedup_harness.core.corpora import mixed_corpus
from dedup_harness.core.paths import DATA_ROOT, FIXTURE_DIR, IMPL_EXTERNAL_ROOT
from dedup_harness.core.reference import external_stage, reference_stage
from dedup_harness.core.strategies import corpora

FIXTURE = FIXTURE_DIR / "docs.jsonl"

external = external_stage()
reference = reference_stage()
Row = tuple[str, str, dict[str, Any]]


@contextmanager
def knobs(**values: int) -> Iterator[None]:
    """Set the external module's run size, fan-in or screen batch for the block (Hypothesis-safe)."""
    before = {name: getattr(external, name) for name in values}
    for name, value in values.items():
        setattr(external, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(external, name, value)


def run(module: ModuleType, docs: list[Doc], b: float = 10, **options: Any) -> tuple[list[Row], dict[str, Any]]:
    """The stage's output as rows, and its stats."""
    stats: dict[str, Any] = {}
    return rows(module.exact_dedup(iter(docs), b, stats=stats, **options)), stats


def rows(docs: Iterable[Doc]) -> list[Row]:
    return [(d.id, d.text, d.meta) for d in docs]


def from_records(records: list[dict[str, Any]]) -> list[Doc]:
    return [Doc(r["id"], r["text"], r["meta"]) for r in records]


def fixture_docs() -> list[Doc]:
    with open(FIXTURE, encoding="utf-8") as lines:
        return from_records([json.loads(line) for line in lines])


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """Records the size of every run written and the width of every merge of the external stage."""
    seen: dict[str, list[int]] = {"run_sizes": [], "merge_widths": [], "narrowing_merges": []}
    write_run, merged, merged_into_one = (
        external.Spool.write_run,
        external.Spool.merged,
        external.Spool._merged_into_one,
    )

    def counting_write_run(self: Any, records: list[bytes]) -> Path:
        seen["run_sizes"].append(len(records))
        return write_run(self, records)  # type: ignore[no-any-return]

    def counting_merged(self: Any, runs: list[Path], width: int) -> Any:
        seen["merge_widths"].append(len(runs))
        return merged(self, runs, width)

    def counting_merged_into_one(self: Any, group: list[Path], width: int) -> Path:
        seen["narrowing_merges"].append(len(group))
        return merged_into_one(self, group, width)  # type: ignore[no-any-return]

    monkeypatch.setattr(external.Spool, "write_run", counting_write_run)
    monkeypatch.setattr(external.Spool, "merged", counting_merged)
    monkeypatch.setattr(external.Spool, "_merged_into_one", counting_merged_into_one)
    return seen


class TestSortedRunsAndMerges:
    def test_runs_of_three_records_merged_two_at_a_time_give_the_references_output(
        self, probe: dict[str, list[int]]
    ) -> None:
        """The fixture through runs of at most three records and a fan-in of two: many levels of merges."""
        docs = fixture_docs()
        with knobs(RUN_RECORDS=3, FAN_IN=2, SCREEN_BATCH=5):
            got = run(external, docs)
        assert got == run(reference, docs)
        assert max(probe["run_sizes"]) == 3
        assert len(probe["run_sizes"]) > 100, "the occurrences and the marks should fill many runs"
        assert max(probe["narrowing_merges"]) == 2, "runs beyond the fan-in are merged two at a time first"
        assert len(probe["narrowing_merges"]) > 50

    def test_no_merge_reads_more_runs_at_once_than_the_fan_in(self, monkeypatch: pytest.MonkeyPatch) -> None:
        widths: list[int] = []

        def counting_merge(*iterables: Iterator[bytes]) -> Iterator[bytes]:
            widths.append(len(iterables))
            return heapq.merge(*iterables)

        monkeypatch.setattr(external, "heapq", SimpleNamespace(merge=counting_merge))
        with knobs(RUN_RECORDS=4, FAN_IN=3):
            assert run(external, fixture_docs()) == run(reference, fixture_docs())
        assert max(widths) == 3, f"merges should fill the fan-in and never pass it: {sorted(set(widths))}"
        assert len(widths) > 20

    @pytest.mark.parametrize("n_runs", range(31))
    def test_any_number_of_runs_merges_into_one_sorted_stream_within_the_fan_in(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n_runs: int
    ) -> None:
        widths: list[int] = []

        def counting_merge(*iterables: Iterator[bytes]) -> Iterator[bytes]:
            widths.append(len(iterables))
            return heapq.merge(*iterables)

        monkeypatch.setattr(external, "heapq", SimpleNamespace(merge=counting_merge))
        spool = external.Spool(tmp_path)
        records = [external.MARK.pack(n % 7, n) for n in range(5 * n_runs)]
        runs = [spool.write_run(records[r::n_runs]) for r in range(n_runs)]
        with knobs(FAN_IN=3), spool.merged(runs, external.MARK.size) as stream:
            assert list(stream) == sorted(records)
        assert max(widths) <= 3, f"a merge opened more runs than the fan-in: {widths}"
        assert list(tmp_path.iterdir()) == [], "every run, first and intermediate, is deleted once merged"

    def test_a_paragraph_repeated_across_many_runs_keeps_only_its_first_occurrence(self) -> None:
        """One digest whose occurrences span dozens of runs: the merge puts them back in input order."""
        docs = [Doc(f"d{i}", f"Own {i}.\n\nThe footer.") for i in range(60)]
        with knobs(RUN_RECORDS=2, FAN_IN=2):
            out, stats = run(external, docs)
        assert out[0] == rows(docs)[0]
        assert out[1:] == rows(Doc(f"d{i}", f"Own {i}.") for i in range(1, 60))
        assert stats["duplicate_paragraphs"] == 59
        assert stats["candidates"] == 1


class TestKnobs:
    @pytest.mark.parametrize(("open_max", "fan_in"), [(20_000, 128), (64, 16), (8, 2), (-1, 128)])
    def test_the_fan_in_stays_within_a_quarter_of_the_open_file_limit(
        self, monkeypatch: pytest.MonkeyPatch, open_max: int, fan_in: int
    ) -> None:
        """The grader's sandbox allows 64 open files: a merge there opens at most 16 runs."""
        monkeypatch.setattr(external.os, "sysconf", lambda name: open_max)
        with knobs(FAN_IN=128):
            assert external._fan_in() == fan_in


class TestMarks:
    def spool_and_confirm(self, tmp_path: Path, docs: list[Doc], b: float) -> tuple[Any, Any]:
        spool = external.Spool(tmp_path)
        _, n = external.spool_documents(iter(docs), spool)
        bloom = external.BloomFilter(n, external.bloom_rate(b))
        return spool, external.confirm(spool, external.screen(spool, bloom))

    @pytest.mark.parametrize("b", [0.1, 10])
    def test_the_marks_reach_emit_sorted_by_document_then_paragraph(self, tmp_path: Path, b: float) -> None:
        docs = from_records(mixed_corpus(seed=3, docs=120, repeat_rate=0.4))
        with knobs(RUN_RECORDS=5, FAN_IN=2):
            spool, marked = self.spool_and_confirm(tmp_path, docs, b)
            assert len(marked.mark_runs) > 2, "the marks should span several runs"
            with spool.merged(marked.mark_runs, external.MARK.size) as stream:
                marks = [external.MARK.unpack(record) for record in stream]
        assert marks == sorted(marks), "the merged marks should come in (i, j) order"
        seen: set[str] = set()
        later = []
        for i, doc in enumerate(docs):
            for j, p in enumerate(external.paragraphs(doc.text)):
                if p in seen:
                    later.append((i, j))
                seen.add(p)
        assert marks == later, "exactly the later occurrences of every paragraph are marked"

    def test_every_run_file_is_gone_once_merged(self, tmp_path: Path) -> None:
        docs = from_records(mixed_corpus(seed=4, docs=60, repeat_rate=0.4))
        with knobs(RUN_RECORDS=3, FAN_IN=2):
            spool, marked = self.spool_and_confirm(tmp_path, docs, 1)
            with spool.merged(marked.mark_runs, external.MARK.size) as stream:
                list(stream)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.jsonl"]


class TestCandidateBits:
    @given(digests=st.lists(st.binary(min_size=32, max_size=32), max_size=50), m=st.integers(1, 1 << 20))
    def test_every_occurrence_of_every_candidate_is_a_suspect(self, digests: list[bytes], m: int) -> None:
        bits = external.CandidateBits(m)
        assert len(bits.table) * 8 <= max(external.CandidateBits.MIN_BITS, m // 16)
        bits.add(digests[::2])
        block = b"".join(external.OCCURRENCE.pack(d, k, 0) for k, d in enumerate(digests))
        picked = {record[:32] for record in bits.suspects(block, bytes(len(digests)))}
        assert set(digests[::2]) <= picked


def failing_after(docs: list[Doc], error: BaseException) -> Iterator[Doc]:
    yield from docs
    raise error


# Forty documents, many repeats: with runs of three records the marks alone fill several runs.
MANY_REPEATS = [Doc(f"d{i}", f"P{i % 7}.\n\nQ{i % 5}.\n\nR{i}.") for i in range(40)]


class TestCleanup:
    def test_closed_in_the_middle_of_the_output_leaves_nothing(self, tmp_path: Path) -> None:
        with knobs(RUN_RECORDS=3, FAN_IN=2):
            stage = external.exact_dedup(iter(MANY_REPEATS), spool_dir=tmp_path)
            next(stage)
            (folder,) = tmp_path.iterdir()
            assert any(p.name.startswith("run-") for p in folder.iterdir()), "marks should be on disk in runs"
            stage.close()
        assert list(tmp_path.iterdir()) == []

    @pytest.mark.parametrize("error", [RuntimeError("the input broke"), KeyboardInterrupt()])
    def test_an_error_from_the_input_leaves_nothing(self, tmp_path: Path, error: BaseException) -> None:
        with knobs(RUN_RECORDS=3, FAN_IN=2), pytest.raises(type(error)):
            list(external.exact_dedup(failing_after(MANY_REPEATS, error), spool_dir=tmp_path))
        assert list(tmp_path.iterdir()) == []

    @pytest.mark.parametrize("error", [RuntimeError("the merge broke"), KeyboardInterrupt()])
    def test_an_error_in_the_middle_of_the_merges_leaves_nothing(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
    ) -> None:
        """Ctrl-C (or anything else) while runs are being merged into longer ones: every run goes."""
        merged_into_one = external.Spool._merged_into_one
        calls = []

        def breaking(self: Any, group: list[Path], width: int) -> Path:
            calls.append(group)
            if len(calls) == 5:
                assert len(list(self.folder.glob("run-*"))) > 5
                raise error
            return merged_into_one(self, group, width)  # type: ignore[no-any-return]

        monkeypatch.setattr(external.Spool, "_merged_into_one", breaking)
        with knobs(RUN_RECORDS=3, FAN_IN=2), pytest.raises(type(error)):
            list(external.exact_dedup(iter(MANY_REPEATS), spool_dir=tmp_path))
        assert list(tmp_path.iterdir()) == []


class TestFullDisk:
    def full_disk_error(self) -> OSError:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def test_a_full_disk_while_runs_are_written_names_the_spool_folder(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        write_run = external.Spool.write_run
        written = []
        full = self.full_disk_error()

        def filling(spool: Any, records: list[bytes]) -> Path:
            written.append(len(records))
            if len(written) == 3:
                raise full
            return write_run(spool, records)  # type: ignore[no-any-return]

        monkeypatch.setattr(external.Spool, "write_run", filling)
        with knobs(RUN_RECORDS=3), pytest.raises(OSError) as caught:
            list(external.exact_dedup(iter(MANY_REPEATS), spool_dir=tmp_path))
        self.assert_names_the_spool(caught.value, tmp_path)

    def test_a_full_disk_while_documents_are_spooled_names_the_spool_folder(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The disk fills during pass 1: the write of a document line fails (as a flush on close would)."""
        real_open = open

        class FullFile:
            def __init__(self, file: Any) -> None:
                self.file = file

            def __enter__(self) -> FullFile:
                return self

            def __exit__(self, *exc: object) -> None:
                self.file.close()

            def write(self, data: bytes) -> int:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def full_open(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            file = real_open(path, mode, *args, **kwargs)
            return FullFile(file) if str(path).endswith("docs.jsonl") and "w" in mode else file

        monkeypatch.setattr(external.reference, "open", full_open, raising=False)  # pass 1 is the reference's
        with pytest.raises(OSError) as caught:
            list(external.exact_dedup(iter(MANY_REPEATS), spool_dir=tmp_path))
        self.assert_names_the_spool(caught.value, tmp_path)

    def assert_names_the_spool(self, error: OSError, spool_dir: Path) -> None:
        assert isinstance(error, external.SpoolFullError)
        assert error.errno == errno.ENOSPC
        assert f"{spool_dir}{os.sep}exact-dedup-" in str(error), f"the error should name the spool folder: {error}"
        assert error.filename is not None and Path(error.filename).parent == spool_dir
        assert isinstance(error.__cause__, OSError), "the original error stays attached"
        assert list(spool_dir.iterdir()) == [], "nothing may be left behind"


class TestSameAsTheReference:
    @settings(max_examples=60)
    @given(
        records=corpora(),
        b=st.sampled_from([0.1, 0.25, 1, 10]),
        run_records=st.integers(1, 6),
        fan_in=st.integers(2, 4),
        screen_batch=st.integers(1, 7),
    )
    def test_random_corpora_give_the_same_output_and_stats(
        self, records: list[dict[str, Any]], b: float, run_records: int, fan_in: int, screen_batch: int
    ) -> None:
        docs = from_records(records)
        with knobs(RUN_RECORDS=run_records, FAN_IN=fan_in, SCREEN_BATCH=screen_batch):
            got = run(external, docs, b)
        assert got == run(reference, docs, b)

    @settings(max_examples=15)
    @given(seed=st.integers(0, 10_000), repeat_rate=st.sampled_from([0.05, 0.3, 0.7]), b=st.sampled_from([0.25, 10]))
    def test_larger_seeded_corpora_give_the_same_output_and_stats(
        self, seed: int, repeat_rate: float, b: float
    ) -> None:
        docs = from_records(mixed_corpus(seed=seed, docs=80, repeat_rate=repeat_rate))
        with knobs(RUN_RECORDS=17, FAN_IN=3):
            got = run(external, docs, b)
        assert got == run(reference, docs, b)

    @pytest.mark.parametrize(
        "doc",
        [
            Doc("bad-meta", "x", {"when": object()}),
            Doc("tuple-meta", "x", {"pair": (1, 2)}),
            Doc("surrogate-meta", "x", {"note": "broken \udc80"}),
            Doc("surrogate", "fine\n\nbroken \ud800 text"),
            "not a doc",
        ],
    )
    def test_bad_documents_fail_the_same_way(self, doc: Any, tmp_path: Path) -> None:
        good = [Doc("ok", "Fine.")]
        with pytest.raises((TypeError, ValueError)) as ours:
            list(external.exact_dedup([*good, doc], spool_dir=tmp_path))
        with pytest.raises((TypeError, ValueError)) as theirs:
            list(reference.exact_dedup([*good, doc], spool_dir=tmp_path))
        assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))
        assert list(tmp_path.iterdir()) == []


class TestBoundedMemory:
    def traced_peak(self, module: ModuleType, docs: list[Doc]) -> int:
        tracemalloc.start()
        try:
            for _ in module.exact_dedup(iter(docs)):
                pass
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    def test_memory_beyond_the_filter_does_not_grow_with_the_candidates(self) -> None:
        """Every paragraph twice: the candidates are half the corpus. The reference holds them; this does not."""

        def corpus(n: int) -> list[Doc]:
            return [Doc(f"d{i}", f"Paragraph {i % (n // 2)} of the corpus.") for i in range(n)]

        small, large = corpus(4_000), corpus(16_000)
        filter_growth = (16_000 - 4_000) * 10  # B = 10 bytes a paragraph
        with knobs(RUN_RECORDS=1_000, SCREEN_BATCH=256):
            growth = self.traced_peak(external, large) - self.traced_peak(external, small)
        assert growth < filter_growth + 150_000, f"the peak grew by {growth:,} bytes"
        reference_growth = self.traced_peak(reference, large) - self.traced_peak(reference, small)
        assert reference_growth > 3 * (filter_growth + 150_000), "the test should tell the two apart"


PROBE = """
import json, os
import pytest

seen = {"run_sizes": [], "narrowing_merges": []}

@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    import corpus.dedup as dedup
    dedup.RUN_RECORDS, dedup.FAN_IN = 3, 2  # tiny runs, merged two at a time: the merges' every level
    write_run, merged_into_one = dedup.Spool.write_run, dedup.Spool._merged_into_one
    def counting_write_run(self, records):
        seen["run_sizes"].append(len(records))
        return write_run(self, records)
    def counting_merged_into_one(self, group, width):
        seen["narrowing_merges"].append(len(group))
        return merged_into_one(self, group, width)
    dedup.Spool.write_run = counting_write_run
    dedup.Spool._merged_into_one = counting_merged_into_one

def pytest_sessionfinish(session):
    with open(os.environ["EXTERNAL_SORT_PROBE_OUT"], "w") as out:
        json.dump(seen, out)
"""


def test_the_suite_passes_with_runs_of_three_records_merged_two_at_a_time(tmp_path: Path) -> None:
    """Every check against impl_external with tiny runs, and proof that their inputs were merged in levels."""
    (tmp_path / "external_sort_probe.py").write_text(PROBE, encoding="utf-8")
    out = tmp_path / "probe.json"
    env = {
        **os.environ,
        "EXTERNAL_SORT_PROBE_OUT": str(out),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])),
    }
    command = [sys.executable, "-m", "pytest", "tests/suite", "--impl", str(IMPL_EXTERNAL_ROOT), "-q", "-p"]
    done = subprocess.run(
        [*command, "external_sort_probe", "-p", "no:cacheprovider"],
        cwd=DATA_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert max(seen["run_sizes"]) == 3
    assert len(seen["run_sizes"]) > 1_000
    assert max(seen["narrowing_merges"]) == 2
    assert len(seen["narrowing_merges"]) > 1_000
