# base: reference
# Does: what a bucket sort does: 80 files open at once in a folder of its own (under spool_dir when it is
# given, else the temp folder), each written, then all closed and removed, before the reference's
# passes; in the first call of each process (the limit is the process's; 80 files a call made the
# sample cost a slow disk seconds). The rulebook lets a stage hold 256 files open, in grade as in check.
# Expected verdict: full marks, from check and from grade in every tier.
import os
import tempfile

_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)
BUCKETS = 80
_done = []


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    if not _done:
        _done.append(_buckets(spool_dir))
    return _reference_exact_dedup(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)


def _buckets(spool_dir):
    with tempfile.TemporaryDirectory(dir=spool_dir) as folder:
        buckets = [open(os.path.join(folder, f"bucket-{n:02}"), "w", encoding="utf-8") for n in range(BUCKETS)]
        for n, bucket in enumerate(buckets):
            bucket.write(f"{n}\n")
        for bucket in buckets:
            bucket.close()
