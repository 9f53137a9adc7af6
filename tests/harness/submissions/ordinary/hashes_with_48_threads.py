# base: reference
# Does: what a student keen to use every core writes: before the passes, 48 threads at once (a pool of
# them, each waiting for the others) hash what the stage is fed. Threads are not child processes: the
# rulebook gives a stage 64 of them, in grade as in check.
# Expected verdict: full marks, from check and from grade in every tier.
import itertools
import threading

_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)
POOL = 48


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    docs = iter(docs)
    first = list(itertools.islice(docs, 1))
    together = threading.Barrier(POOL)
    digests = []

    def hash_one() -> None:
        together.wait(timeout=30)  # all 48 alive at once
        digests.extend(paragraph_hash(doc.text) for doc in first)  # noqa: F821

    pool = [threading.Thread(target=hash_one) for _ in range(POOL)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return _reference_exact_dedup(itertools.chain(first, docs), bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
