# base: reference
# Tries: nothing hostile. bloom_rate is missing (renamed); exact_dedup still works.
# Expected verdict: a "missing" problem for bloom_rate; the bloom sizing check errors, and the
# checks that do not use bloom_rate (the spool check, the worked example) still run and pass.
_rate = bloom_rate
del bloom_rate


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    return _run(docs, _rate(bloom_bytes_per_item), spool_dir, stats)
