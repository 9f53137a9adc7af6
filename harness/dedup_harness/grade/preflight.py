"""Before grading anything: known answers through the very worker path the grade will use, and a probe.

A grade that silently gives a correct submission 0/12 (a worker that cannot start, an interpreter too
old, a session folder it cannot reach) cannot gate a course. So ``grade`` first runs the reference's
``dedup.py`` and the canary, each behind a ``SubmissionProxy`` in the tier, temp folder and
interpreter the batch will use, on answers only a working setup gets right (the worked example by
check 1's judge, a spool under ``spool_dir`` gone once the output is read, the stats keys, a split,
the rate): the reference must get every one right and the canary every one wrong. Then, in the
reference's worker, the isolation probe (``worker/probe.py``: the harness's files, TCP and UDP to
127.0.0.1, a signal to the grader): what gets through stops ``grade`` unless ``--unisolated``. The
same worker imports each allowed package; one that fails stops the run with its cause.
"""

from __future__ import annotations

import math
import os
import pickle
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dedup_harness.core import bloom_sizing, scratch_dirs, worked_example
from dedup_harness.core.checks import BY_NAME, CHECKS
from dedup_harness.core.judges import JUDGES, Subject
from dedup_harness.core.paths import CANARY_SOURCE, IMPL_ROOT, PACKAGE_DIR
from dedup_harness.core.reference import load
from dedup_harness.core.signals import forked
from dedup_harness.grade.client.faults import SandboxFailed, WorkerFault
from dedup_harness.grade.client.proxy import SubmissionProxy
from dedup_harness.grade.listeners import Listeners
from dedup_harness.grade.sandbox import Limits, Sandbox
from dedup_harness.grade.sandbox.tiers import Tier, WorkerSetup, how_to_isolate
from dedup_harness.grade.submission import prepare

HAND_CHECK = CHECKS[0]  # the worked example's check
LIMITS = Limits(submission_seconds=30.0, cpu_seconds=30)  # a call's seconds are the rulebook's; a few calls
REFERENCE_SOURCE = IMPL_ROOT / "corpus" / "dedup.py"
HOW_TO_ISOLATE = how_to_isolate()


@dataclass(frozen=True)
class Answer:
    """One known answer: what it asks, whether the worker's answer was right, and what came back."""

    question: str
    right: bool
    got: str


@dataclass
class Preflight:
    """What the preflight found: the answers of both, the probe's results, and what is wrong."""

    setup: WorkerSetup
    reference: list[Answer] = field(default_factory=list)
    canary: list[Answer] = field(default_factory=list)
    probe: dict[str, Any] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)  # the setup does not work: grading would lie
    leaks: list[str] = field(default_factory=list)  # the worker is not isolated
    protections: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def message(self) -> str:
        """Why grading cannot go on, in words for the person who ran it."""
        lines = [f"the preflight failed in the {self.setup.tier} tier (worker: {self.setup.interpreter.path}):"]
        lines += [f"  - {failure}" for failure in self.failures]
        return "\n".join(lines)

    def refusal(self) -> str:
        lines = [f"refusing to run submissions: the {self.setup.tier} tier does not isolate the worker here:"]
        lines += [f"  - {leak}" for leak in self.leaks]
        lines += [f"  - passed over: {reason}" for reason in self.setup.passed_over]
        return "\n".join([*lines, HOW_TO_ISOLATE])


def _ask(question: str, action: Callable[[], Any], right: Callable[[Any], bool]) -> Answer:
    """One question put to the worker; an exception (the worker's or the submission's) is a wrong answer."""
    try:
        value = action()
        return Answer(question, bool(right(value)), repr(value)[:300])
    except SandboxFailed:
        raise
    except (WorkerFault, Exception) as error:
        return Answer(question, False, f"{type(error).__name__}: {error}"[:300])


def _spool(proxy: SubmissionProxy, spool_dir: Path, doc_type: type) -> str:
    """The worked example through exact_dedup with ``spool_dir``: whether a spool lived there, and went."""
    docs = [doc_type(doc_id, text) for doc_id, text in worked_example.DOCUMENTS]
    stage = proxy.exact_dedup(iter(docs), worked_example.BLOOM_BYTES_PER_ITEM, spool_dir=spool_dir, stats={})
    next(stage)
    spooled = any(spool_dir.iterdir())
    list(stage)
    return f"a spool while running: {spooled}; gone after: {not any(spool_dir.iterdir())}"


SPOOL_RIGHT = "a spool while running: True; gone after: True"


def known_answers(proxy: SubmissionProxy, spool_dir: Path, doc_type: type) -> list[Answer]:
    """The answers only a working setup running a correct ``corpus.dedup`` gets right."""
    example = worked_example
    text = example.DOCUMENTS[0][1]
    rate = bloom_sizing.rate(example.BLOOM_BYTES_PER_ITEM)
    docs = [doc_type(doc_id, doc_text) for doc_id, doc_text in example.DOCUMENTS]
    hand = JUDGES[BY_NAME[HAND_CHECK].judged_as]
    inputs = {"docs": docs, "bloom_bytes_per_item": example.BLOOM_BYTES_PER_ITEM}
    return [
        _ask("STATS_KEYS names the eight stats", lambda: proxy.STATS_KEYS, lambda v: tuple(v) == tuple(example.STATS)),
        _ask("paragraphs splits on the blank line", lambda: proxy.paragraphs(text), lambda v: v == text.split("\n\n")),
        _ask(
            "bloom_rate(10) is exp(-8 B (ln 2)^2)",
            lambda: proxy.bloom_rate(example.BLOOM_BYTES_PER_ITEM),
            lambda v: math.isclose(v, rate, rel_tol=1e-9),
        ),
        _ask(
            "the chapter's worked example: every digest, the output and every stat, as check 1 judges it",
            lambda: hand(Subject(proxy, spool_dir.parent), inputs).message(),
            lambda differences: differences == "",
        ),
        _ask(
            "the spool lives under spool_dir and is gone once the output is read",
            lambda: _spool(proxy, spool_dir, doc_type),
            lambda v: v == SPOOL_RIGHT,
        ),
    ]


def probe_request(listeners: Listeners, setup: WorkerSetup) -> dict[str, Any]:
    """Read the reference and the harness, reach the listeners, signal the grader; import the allowed packages."""
    private = [REFERENCE_SOURCE.resolve(), (PACKAGE_DIR / "__init__.py").resolve()]
    modules = list(setup.packages.modules) if setup.packages else []
    return {"read": [str(path) for path in private], **listeners.ports(), "signal": os.getpid(), "import": modules}


def by_name(results: dict[str, Any], kind: str) -> dict[str, str]:
    """The results of one kind of try (``read``, ``import``), by path or module, as plain strings."""
    found = results.get(kind)
    return {str(name): str(result) for name, result in found.items()} if type(found) is dict else {}


def not_imported(results: dict[str, Any]) -> list[str]:
    """Each allowed package the worker could not import, with what stopped it."""
    return [
        f"the allowed package {module} does not import in the worker: {result}"
        for module, result in by_name(results, "import").items()
        if result != "ok"
    ]


def reached(streams: list[bytes], datagrams: list[bytes]) -> list[str]:
    """What got to the grader's listeners, in words."""
    found = ["the worker opened a TCP connection to a listener of the grader's on 127.0.0.1"] if streams else []
    return found + (["the worker's UDP datagram reached a socket of the grader's on 127.0.0.1"] if datagrams else [])


def leaks(results: dict[str, Any], reached: list[str]) -> list[str]:
    """What the probe got through, in words."""
    found = [
        f"the worker can read the harness's own files ({path})"
        for path, result in by_name(results, "read").items()
        if result == "ok"
    ]
    if results.get("signal") == "ok":
        found.append(f"the worker can signal the grader's process (pid {os.getpid()})")
    return [*found, *reached]


@dataclass
class PreflightRun:
    """One of the two preflight workers: its answers, and (the reference's) the probe."""

    answers: list[Answer] = field(default_factory=list)
    probe: dict[str, Any] = field(default_factory=dict)
    protections: dict[str, Any] = field(default_factory=dict)
    failure: str = ""


def graded(
    source: Path, setup: WorkerSetup, doc_type: type, probe: dict[str, Any] | None, *, own_namespace: bool = False
) -> PreflightRun:
    """``source`` as a submission in one sandbox: its known answers, and the probe when asked."""
    run = PreflightRun()
    with tempfile.TemporaryDirectory(prefix=scratch_dirs.prefix("preflight")) as scratch:
        sandbox = Sandbox(prepare(source, Path(scratch)).root, LIMITS, setup, own_namespace=own_namespace)
        proxy = SubmissionProxy(sandbox, doc_type=lambda: doc_type)
        try:
            proxy.start()
            spool = sandbox.shared / "preflight-spool"
            spool.mkdir()
            run.answers = known_answers(proxy, spool, doc_type)
            run.probe = proxy.probe(probe) if probe is not None else {}
        except SandboxFailed as error:
            run.failure = str(error)
        except WorkerFault as error:
            run.failure = f"{source.name} could not be run in the worker: {proxy.broken or error}"
        finally:
            proxy.shutdown()
            run.protections = sandbox.protections.as_dict()
            sandbox.close()
    return run


def both_graded(
    setup: WorkerSetup, doc_type: type, probe: dict[str, Any], *, own_namespace: bool
) -> list[PreflightRun]:
    """The reference (with the probe) and the canary, one after the other."""
    ours = graded(REFERENCE_SOURCE, setup, doc_type, probe, own_namespace=own_namespace)
    return [ours, graded(CANARY_SOURCE, setup, doc_type, None, own_namespace=own_namespace)]


def graded_apart(setup: WorkerSetup, doc_type: type, probe: dict[str, Any]) -> list[PreflightRun]:
    """``both_graded`` as a grading process runs it: where the setup gives each submission a disk of its
    own, in a forked child that moves into a namespace of its own (the grader itself stays where it is)."""
    if not setup.own_disk:
        return both_graded(setup, doc_type, probe, own_namespace=False)
    read_end, write_end = os.pipe()
    with forked() as child:
        if child == 0:  # pragma: no cover (a forked child: it reports through the pipe and leaves)
            os.close(read_end)
            try:
                runs = both_graded(setup, doc_type, probe, own_namespace=True)
            except BaseException as error:  # whatever it was, the parent says it
                runs = [
                    PreflightRun(failure=f"the preflight's grading process failed: {type(error).__name__}: {error}")
                ] * 2
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(pickle.dumps(runs))
            os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(child, 0)
    if not data:
        ended = f"the preflight's grading process ended with status {os.waitstatus_to_exitcode(status)}"
        return [PreflightRun(failure=ended), PreflightRun(failure=ended)]
    answered: list[PreflightRun] = pickle.loads(data)  # our own child's, over our own pipe
    return answered


def preflight(setup: WorkerSetup) -> Preflight:
    """Grade the reference and the canary through the worker, and probe the isolation; cost: two worker starts."""
    started = time.monotonic()
    doc_type = load("corpus.doc").Doc
    listeners = Listeners()
    try:
        ours, theirs = graded_apart(setup, doc_type, probe_request(listeners, setup))
    finally:
        got_through = reached(*listeners.received())
    result = Preflight(setup, ours.answers, theirs.answers, ours.probe, protections=ours.protections)
    result.failures = [run.failure for run in (ours, theirs) if run.failure]
    result.failures += [
        f"the reference's dedup.py answered wrong: {a.question} (got {a.got})" for a in ours.answers if not a.right
    ]
    result.failures += [f"the canary (always wrong) answered right: {a.question}" for a in theirs.answers if a.right]
    result.failures += not_imported(ours.probe)
    if not result.failures:
        result.leaks = leaks(ours.probe, got_through)
    if setup.tier is Tier.NONE:
        result.leaks.insert(0, "the none tier isolates nothing")
    result.seconds = time.monotonic() - started
    return result
