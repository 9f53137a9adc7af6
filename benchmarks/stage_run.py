"""Run one stage over a JSON Lines corpus in this process and print what it cost, as one JSON object.

    python benchmarks/stage_run.py reference|oracle IN.jsonl OUT.jsonl

Both stages get the same driver: records streamed from disk, turned into ``Doc`` objects, passed
through the stage, written back as JSON lines. The corpus is never held in memory, so the peak
resident size above the baseline (taken after every import, before the first record) is what the
stage itself keeps: for the oracle a set of paragraph texts, for the reference its Bloom filter,
candidates and marks. ``ru_maxrss`` is a high-water mark in KiB on Linux.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from dedup_harness import jsonl, reference
from dedup_harness.paths import DATA_ROOT

Stage = Callable[[Iterable[Any], dict[str, Any]], Iterator[Any]]


def load_stage(which: str) -> Stage:
    """The stage to measure, imported (numpy too, for the reference) before the baseline is taken."""
    if which == "reference":
        dedup = reference.load("corpus.dedup")
        return lambda docs, stats: dedup.exact_dedup(docs, stats=stats)  # type: ignore[no-any-return]
    if which == "oracle":
        reference.load("corpus.doc")  # the oracle's one import from the reference
        sys.path.insert(0, str(DATA_ROOT))
        oracle = __import__("oracle")
        return lambda docs, stats: oracle.exact_dedup(docs, stats=stats)  # type: ignore[no-any-return]
    raise SystemExit(f"stage_run: unknown stage {which!r} (reference or oracle)")


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main(argv: list[str]) -> int:
    which, source, target = argv
    stage = load_stage(which)
    doc = reference.load("corpus.doc")
    stats: dict[str, Any] = {}
    with open(source, "rb") as lines, open(target, "wb") as out:
        baseline = peak_rss_bytes()
        start = time.perf_counter()
        records = jsonl.read_records(lines, source=source)
        for d in stage((doc.Doc(r["id"], r["text"], r["meta"]) for r in records), stats):
            jsonl.write_record(out, {"id": d.id, "text": d.text, "meta": d.meta})
        seconds = time.perf_counter() - start
    peak = peak_rss_bytes()
    result = {"stage": which, "seconds": seconds, "baseline_rss": baseline, "peak_rss": peak, "stats": stats}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
