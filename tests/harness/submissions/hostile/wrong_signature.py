# base: reference
# Tries: nothing hostile. paragraph_hash wants an extra required parameter, and exact_dedup takes
# spool_dir positionally with a different default B.
# Expected verdict: "signature" problems for both; the worked example errors (paragraph_hash(p)
# raises TypeError in the worker).
_honest_hash = paragraph_hash
_honest_dedup = exact_dedup


def paragraph_hash(p, encoding):
    return _honest_hash(p)


def exact_dedup(docs, bloom_bytes_per_item=8, spool_dir=None, stats=None):
    return _honest_dedup(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
