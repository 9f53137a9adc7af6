# base: reference
# Tries: to wear the grader down with many answers of middling size: every document comes out with a
# 1 MiB paragraph added, so reading an output to the end takes an answer of 0.5 to 1 MiB per document,
# each one well under the limit on one message.
# Expected verdict: reading an output to the end stops with "output too large" once the call has
# received its share of bytes (16 MiB); the checks that read one document at a time at the check's
# share; the grader's memory stays bounded.
_PADDING = "\n\n" + "m" * (1 << 20)
_honest = exact_dedup


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    for doc in _honest(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats):
        yield Doc(doc.id, doc.text + _PADDING, doc.meta)
