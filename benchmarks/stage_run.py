"""Run one target over a JSON Lines corpus in this process and print what it cost, as one JSON object.

    python benchmarks/stage_run.py TARGET IN.jsonl OUT.jsonl

The stages get the same driver: records streamed from disk, turned into ``Doc`` objects, passed
through the stage, written back as JSON lines.

- ``reference``: the reference stage (``impl/``: its candidates and their occurrences in memory);
- ``external``: the external-sort stage (``impl_external/``: the filter and fixed buffers);
- ``oracle``: the set oracle (``oracle/``: a set of paragraph texts);
- ``digests``: what the Bloom filter is there to replace, one pass that keeps a Python set of the
  paragraphs' SHA-256 digests (the reference's split and digest).

The programs run file to file, in this process, after their imports:

- ``plain``: ``plain_dedup.py``, json.loads, a set of paragraph texts, json.dumps;
- ``command``: ``dedup-harness dedup IN -o OUT -q`` (``cli.main``), the external stage;
- ``command-log``: the same without ``-q``; stderr is not a terminal, so a line per phase;
- ``command-bar``: without ``-q``, with rich's bar drawn on stderr as on a terminal;
- ``command-bare``: ``-q`` with the progress display taken out (``Progress`` and the counting of
  input lines replaced by no-ops), to see what counting costs when nothing is shown;
- ``command-reference``: ``--reference -q``.

The corpus is never held in memory, so the peak resident size above the baseline (taken after every
import, before the first record) is what the target itself keeps: for the oracle and ``plain`` a set of
paragraph texts, for ``digests`` a set of digests, for the stages their filter, candidates and buffers.
``import_peak_rss`` is the peak before the baseline (the interpreter and its imports), so the whole
process's peak is the larger of it and ``peak_rss``.

Peak memory is Linux's VmHWM of this process's own address space, reset (``clear_refs``) at the
baseline. ``ru_maxrss`` would not do: it carries over the parent's high-water mark through fork and
exec, so a child of a large test process reports the parent's size.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()  # before the imports, which are part of what a program costs

import hashlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable, Iterable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any  # noqa: E402

from dedup_harness.core import jsonl, reference  # noqa: E402

Stage = Callable[[Iterable[Any], dict[str, Any]], Iterator[Any]]
Run = Callable[[str, str, dict[str, Any]], None]  # source, target, stats to fill

STAGES = ("reference", "external", "oracle", "digests")
COMMANDS = {
    "command": ["-q"],
    "command-log": [],
    "command-bar": [],
    "command-bare": ["-q"],
    "command-reference": ["--reference", "-q"],
}
TARGETS = (*STAGES, "plain", *COMMANDS)


def load_stage(which: str) -> tuple[Stage, type]:
    """The stage to measure and its ``Doc`` class, imported (numpy too) before the baseline is taken."""
    if which == "oracle":
        reference.load("corpus.doc")  # the oracle's one import from the reference
        oracle = reference.oracle()
        return (lambda docs, stats: oracle.exact_dedup(docs, stats=stats)), oracle.Doc
    dedup = reference.external_stage() if which == "external" else reference.reference_stage()
    if which == "digests":
        return digests_stage(dedup), dedup.Doc
    return (lambda docs, stats: dedup.exact_dedup(docs, stats=stats)), dedup.Doc


def digests_stage(dedup: ModuleType) -> Stage:
    """One streaming pass: a paragraph goes when its SHA-256 digest is already in the set."""
    split, make_doc, sha256 = dedup.paragraphs, dedup.Doc, hashlib.sha256

    def stage(docs: Iterable[Any], stats: dict[str, Any]) -> Iterator[Any]:
        seen: set[bytes] = set()
        count = 0
        for doc in docs:
            found = split(doc.text)
            count += len(found)
            kept = []
            for p in found:
                digest = sha256(p.encode("utf-8")).digest()  # the reference's paragraph_hash, inlined
                if digest not in seen:
                    seen.add(digest)
                    kept.append(p)
            if len(kept) == len(found):
                yield doc  # untouched (one without paragraphs too)
            elif kept:
                yield make_doc(doc.id, "\n\n".join(kept), doc.meta)
        stats.update(paragraphs=count, unique_paragraphs=len(seen))

    return stage


def drive(stage: Stage, make_doc: type, source: str, target: str, stats: dict[str, Any]) -> None:
    """The stages' driver: records streamed from ``source``, the stage's documents written to ``target``."""
    with open(source, "rb") as lines, open(target, "wb") as out:
        records = jsonl.read_records(lines, source=source)
        for d in stage((make_doc(r["id"], r["text"], r["meta"]) for r in records), stats):
            jsonl.write_record(out, {"id": d.id, "text": d.text, "meta": d.meta})


def load_command(which: str) -> Run:
    """``dedup-harness dedup`` with the options of ``which``, its modules and its stage imported now."""
    from dedup_harness import cli
    from dedup_harness.commands import dedup as command

    options = COMMANDS[which]
    if which == "command-bar":
        os.environ["TTY_COMPATIBLE"] = "1"  # rich's console takes stderr for a terminal
    if which == "command-bare":
        command.Progress = NoProgress  # type: ignore[misc, assignment]
        command._counted = lambda lines, progress: lines
    if "--reference" in options:
        reference.reference_stage()
    else:
        reference.external_stage()

    def run(source: str, target: str, stats: dict[str, Any]) -> None:
        stats_file = target + ".stats.json"
        code = cli.main(["dedup", source, "-o", target, "--stats", stats_file, *options])
        if code != 0:
            raise SystemExit(f"stage_run: dedup-harness dedup exited with {code}")
        stats.update(json.loads(Path(stats_file).read_text(encoding="utf-8")))
        os.unlink(stats_file)

    return run


class NoProgress:
    """What ``command-bare`` puts in the place of ``Progress``: every call does nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def phase(self, *args: Any, **kwargs: Any) -> None:
        pass

    def advance(self, steps: int = 1) -> None:
        pass


def load_target(which: str) -> Run:
    if which in STAGES:
        stage, make_doc = load_stage(which)
        return lambda source, target, stats: drive(stage, make_doc, source, target, stats)
    if which == "plain":
        sys.path.insert(0, str(Path(__file__).parent))
        import plain_dedup

        return lambda source, target, stats: stats.update(plain_dedup.dedup(source, target))
    if which in COMMANDS:
        return load_command(which)
    raise SystemExit(f"stage_run: unknown target {which!r} ({', '.join(TARGETS)})")


def memory_status(field: str) -> int:
    """A ``/proc/self/status`` size in bytes (VmRSS: now, VmHWM: the peak since the last reset)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/self/status has no {field}")


def reset_peak() -> int:
    """Make the current resident size the new peak; returns it."""
    with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
        refs.write("5")
    return memory_status("VmRSS")


def main(argv: list[str]) -> int:
    which, source, target = argv
    run = load_target(which)
    stats: dict[str, Any] = {}
    import_peak = memory_status("VmHWM")
    baseline = reset_peak()
    start, cpu = time.perf_counter(), time.process_time()
    run(source, target, stats)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    result = {
        "stage": which,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "import_seconds": start - STARTED,
        "import_peak_rss": import_peak,
        "baseline_rss": baseline,
        "peak_rss": memory_status("VmHWM"),
        "stats": stats,
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
