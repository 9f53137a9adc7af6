"""The proxy behaves like the module: stats come back, spool_dir is honoured, failures arrive where they happen.

These talk to a real worker (the reference's dedup.py in a sandbox) without the suite around it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.doc import Doc, compose
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.core.runner import run_suite
from dedup_harness.grade.client.faults import SubmissionExited, WorkerCrashed
from dedup_harness.grade.client.proxy import RemoteOutput, SubmissionProxy
from dedup_harness.grade.plugin import plugin_args
from dedup_harness.grade.sandbox import Limits, Sandbox
from dedup_harness.grade.submission import prepare
from dedup_harness.grade.worker.protocol import TAKE_DOCUMENTS

DOCS = [Doc("a", "One.\n\nTwo.", {"n": 1}), Doc("b", "Two.\n\nThree."), Doc("c", "One.")]


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SubmissionProxy]:
    root = prepare(IMPL_ROOT / "corpus" / "dedup.py", tmp_path_factory.mktemp("scratch")).root
    sandbox = Sandbox(root, Limits(call_seconds=20))
    proxy = SubmissionProxy(sandbox, doc_type=lambda: Doc)
    yield proxy
    proxy.shutdown()
    sandbox.close()


def test_plain_functions_answer_like_the_module(proxy: SubmissionProxy) -> None:
    assert proxy.paragraphs("a\n\n b ") == ["a", "b"]
    assert proxy.paragraph_hash("The cat sat.").hex()[:8] == "84549cfa"
    assert type(proxy.STATS_KEYS) is tuple and proxy.STATS_KEYS[0] == "docs_in"


def test_an_error_keeps_its_builtin_type_and_message(proxy: SubmissionProxy) -> None:
    with pytest.raises(ValueError, match="must be a positive finite number"):
        proxy.bloom_rate(0)


def test_the_output_is_an_iterator_and_the_stats_come_back_into_the_callers_dict(proxy: SubmissionProxy) -> None:
    stats: dict[str, int] = {}
    stage = proxy.exact_dedup(iter(DOCS), 10, stats=stats)
    assert isinstance(stage, RemoteOutput) and iter(stage) is stage
    assert next(stage) == DOCS[0]
    assert stats == {}, "stats are filled once the output is exhausted, not before"
    assert list(stage) == [Doc("b", "Three.")]
    assert stats["docs_in"] == 3 and stats["docs_dropped"] == 1


def test_the_spool_lives_in_spool_dir_and_goes_on_close(proxy: SubmissionProxy) -> None:
    spool_dir = proxy.sandbox.shared / "spool-test"
    spool_dir.mkdir()
    stage = proxy.exact_dedup(iter(DOCS), 10, spool_dir=spool_dir)
    next(stage)
    assert list(spool_dir.iterdir()), "the worker's spool should be visible in spool_dir"
    stage.close()
    assert list(spool_dir.iterdir()) == []


def failing(docs: list[Doc]) -> Iterator[Doc]:
    yield from docs
    raise RuntimeError("the input broke")


def test_an_input_that_raises_raises_in_the_worker_at_the_same_point(proxy: SubmissionProxy) -> None:
    with pytest.raises(RuntimeError, match="the input broke"):
        list(proxy.exact_dedup(failing(DOCS), 10))


def test_stages_compose_across_the_worker(proxy: SubmissionProxy) -> None:
    once = list(compose(proxy.exact_dedup)(iter(DOCS)))
    twice = list(compose(proxy.exact_dedup, proxy.exact_dedup)(iter(DOCS)))
    assert once == twice == [DOCS[0], Doc("b", "Three.")]


def many_docs(count: int, chars: int = 20) -> list[Doc]:
    return [Doc(f"d{n}", f"Paragraph {n}. " + "x" * chars, {"n": n}) for n in range(count)]


@pytest.mark.parametrize(
    ("count", "chars"), [(0, 20), (1, 20), (TAKE_DOCUMENTS, 20), (3 * TAKE_DOCUMENTS + 7, 20), (40, 60_000)]
)
def test_read_all_gives_what_list_gives_batch_after_batch(proxy: SubmissionProxy, count: int, chars: int) -> None:
    """Batches end at TAKE_DOCUMENTS documents or at about a MiB of text; nothing is lost or doubled."""
    docs = many_docs(count, chars)
    by_list: dict[str, int] = {}
    by_batches: dict[str, int] = {}
    want = list(proxy.exact_dedup(iter(docs), 10, stats=by_list))
    stage = proxy.exact_dedup(iter(docs), 10, stats=by_batches)
    assert stage.read_all() == want == docs
    assert by_batches == by_list and by_batches["docs_out"] == count
    with pytest.raises(StopIteration):
        next(stage)


def test_read_all_after_next_reads_the_rest(proxy: SubmissionProxy) -> None:
    stage = proxy.exact_dedup(iter(DOCS), 10)
    assert next(stage) == DOCS[0]
    assert stage.read_all() == [Doc("b", "Three.")]


class Interrupted(BaseException):
    """What the check's own time limit raises in the grader (from SIGALRM), wherever the grader is."""


def test_a_check_interrupted_mid_request_leaves_nothing_for_the_next_call(proxy: SubmissionProxy) -> None:
    """The grader gives up on a request whose reply is on its way; the next call still gets its own answer.

    (The worker's pulls and its batch used to wait in the pipe and be read as the answers to the next
    calls: the third one failed with "malformed tag 'take' during paragraphs()".)
    """
    stage = proxy.exact_dedup(iter(many_docs(100)), 10)
    channel = proxy.worker.channel
    assert channel is not None
    receive_line = channel.receive_line

    def interrupted(*args: object, **kwargs: object) -> bytes:
        raise Interrupted  # once the request is sent, before its reply is read

    channel.receive_line = interrupted  # type: ignore[method-assign]
    starts = proxy.worker.incarnation
    with pytest.raises(Interrupted):
        stage.read_all()
    channel.receive_line = receive_line  # type: ignore[method-assign]
    for text in ("a\n\n b", "c\n\nd", "e"):
        assert proxy.paragraphs(text) == proxy.paragraphs(text) == text.replace(" ", "").split("\n\n")
    assert proxy.worker.incarnation == starts + 1, "the worker left busy with the abandoned request was replaced"


SUBMISSION = """
import os
from corpus.doc import Doc
STATS_KEYS = ("docs_in",)
def paragraphs(text): return [text]
def paragraph_hash(p): return b"0" * 32
def bloom_rate(b): return 0.5
def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
"""


def submitted(tmp_path: Path, body: str) -> Iterator[SubmissionProxy]:
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "dedup.py").write_text(SUBMISSION + body, encoding="utf-8")
    sandbox = Sandbox(prepare(folder, tmp_path / "scratch").root, Limits(call_seconds=20))
    proxy = SubmissionProxy(sandbox, doc_type=lambda: Doc)
    yield proxy
    proxy.shutdown()
    sandbox.close()


def test_read_all_raises_what_the_output_raised_midway(tmp_path: Path) -> None:
    body = """
    for n, doc in enumerate(docs):
        if n == 300:
            raise ZeroDivisionError("broke at 300")
        yield doc
"""
    for proxy in submitted(tmp_path, body):
        with pytest.raises(ZeroDivisionError, match="broke at 300"):
            proxy.exact_dedup(iter(many_docs(400)), 10).read_all()


def test_read_all_sees_os_exit_in_the_output(tmp_path: Path) -> None:
    body = """
    yield from docs
    os._exit(0)
"""
    for proxy in submitted(tmp_path, body):
        with pytest.raises(SubmissionExited):
            proxy.exact_dedup(iter(many_docs(5)), 10).read_all()


def test_a_forged_endless_empty_batch_stops_the_worker(tmp_path: Path) -> None:
    """A submission that patches the worker's batch reply cannot make read_all loop for ever."""
    body = """
    yield from docs
import grading_worker.main
from grading_worker import protocol as messages
grading_worker.main.Worker.take = lambda self, number, output: messages.batch(number, [], False)
"""
    for proxy in submitted(tmp_path, body):
        with pytest.raises(WorkerCrashed, match="malformed batch"):
            proxy.exact_dedup(iter(many_docs(5)), 10).read_all()
        assert [e.kind for e in proxy.events] == ["protocol"]


def test_the_reference_graded_through_the_worker_passes_every_check(tmp_path: Path) -> None:
    root = prepare(IMPL_ROOT / "corpus" / "dedup.py", tmp_path).root
    args = plugin_args(root, tmp_path / "g.json")
    result = run_suite(IMPL_ROOT, profile="grading", extra_args=args, timeout=600)
    assert result.outcomes == dict.fromkeys(CHECKS, Outcome.PASSED), result.output_tail


def test_a_worker_that_printed_more_than_the_grader_reads_is_told_to_discard_the_rest(tmp_path: Path) -> None:
    """Every call prints 2 MiB: the first crosses the pipe (a print returns once its bytes are in it); before the
    next request the worker is told to be quiet, and what it prints from then on goes to /dev/null in the worker."""
    body = """
    os.write(1, b"x" * (2 << 20))
    yield from docs
"""
    for proxy in submitted(tmp_path, body):
        for _ in range(5):
            assert proxy.exact_dedup(iter(DOCS), 10).read_all() == DOCS
        printed = proxy.sandbox.output_bytes()
        assert (2 << 20) - (64 << 10) <= printed <= 2 << 20, printed  # a pipe's worth may still be unread
        proxy.shutdown()
        said = [e.detail for e in proxy.events if e.kind == "output"]
        assert len(said) == 1 and re.fullmatch(
            r"printed more than \d+ bytes; the report keeps the first 16384, and once a worker had printed 1048576 "
            r"it was told to discard the rest uncounted",
            said[0],
        ), said
