# base: reference
# Tries: to flood the grader through the caller's stats dict, whose contents travel back with every
# message about a call: exact_dedup puts 7 MiB in it before it reads its input, so every pull of
# input documents and every answer carries it.
# Expected verdict: the checks that pass a stats dict end with "output too large"; the grader's
# memory stays bounded.
_honest = exact_dedup


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    if stats is not None:
        stats["ballast"] = "z" * (7 << 20)
    yield from _honest(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
