# base: reference
# Tries: to hang the grader inside close(). The output generator loops forever when it is closed
# before it was read to the end.
# Expected verdict: the spool check ends as "timeout" with "close() on exact_dedup's output did not
# answer"; the worked example (read to the end) passes.
_honest = exact_dedup


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    output = _honest(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)

    def stage():
        finished = False
        try:
            yield from output
            finished = True
        finally:
            while not finished:
                pass

    return stage()
