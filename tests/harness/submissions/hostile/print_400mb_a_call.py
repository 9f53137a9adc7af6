# base: reference
# Tries: to cost the batch time through its output: a correct stage that prints 400 MB on every call
# of exact_dedup (one line, written in 4 MB pieces), far past the 16 KiB of output the grader keeps.
# Expected verdict: full marks (nothing it prints is a verdict), graded in about the time of the
# correct sample: past the first MiB the worker is told to discard what it prints, which then costs
# next to nothing; the report says how much was read and that the rest was discarded.
import sys

_PIECE = "x" * (4 << 20)
_PIECES = 100  # 400 MiB a call
_honest = exact_dedup


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    for _ in range(_PIECES):
        sys.stdout.write(_PIECE)
    sys.stdout.write("\n")
    yield from _honest(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
