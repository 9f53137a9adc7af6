"""Run one stage over a JSON Lines corpus in this process and print what it cost, as one JSON object.

    python benchmarks/stage_run.py reference|oracle IN.jsonl OUT.jsonl

Both stages get the same driver: records streamed from disk, turned into ``Doc`` objects, passed
through the stage, written back as JSON lines. The corpus is never held in memory, so the peak
resident size above the baseline (taken after every import, before the first record) is what the
stage itself keeps: for the oracle a set of paragraph texts, for the reference its Bloom filter,
candidates and marks.

Peak memory is Linux's VmHWM of this process's own address space, reset (``clear_refs``) at the
baseline. ``ru_maxrss`` would not do: it carries over the parent's high-water mark through fork and
exec, so a child of a large test process reports the parent's size.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from dedup_harness.core import jsonl, reference
from dedup_harness.core.paths import DATA_ROOT

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
    stage = load_stage(which)
    doc = reference.load("corpus.doc")
    stats: dict[str, Any] = {}
    with open(source, "rb") as lines, open(target, "wb") as out:
        baseline = reset_peak()
        start, cpu = time.perf_counter(), time.process_time()
        records = jsonl.read_records(lines, source=source)
        for d in stage((doc.Doc(r["id"], r["text"], r["meta"]) for r in records), stats):
            jsonl.write_record(out, {"id": d.id, "text": d.text, "meta": d.meta})
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    peak = memory_status("VmHWM")
    result = {
        "stage": which,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "baseline_rss": baseline,
        "peak_rss": peak,
    }
    result["stats"] = stats
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
