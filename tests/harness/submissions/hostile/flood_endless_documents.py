# base: reference
# Tries: to exhaust the grader's memory with output: exact_dedup yields, for ever, documents of
# 7 MiB each, just under what one answer may hold, so each one is a valid answer to decode and keep.
# Expected verdict: every check that reads its output ends with "output too large" once the check
# has received its share of bytes; the grader's memory stays bounded; the checks that never call
# exact_dedup (the split rules, the hash, the sizing) are unaffected.
_TEXT = "x" * (7 << 20)


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    n = 0
    while True:
        n += 1
        yield Doc(f"flood-{n}", _TEXT)
