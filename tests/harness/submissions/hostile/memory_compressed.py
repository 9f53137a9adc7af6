# base: reference
# Tries: to forge a pass of the memory check by holding the documents compressed. The stage spools as
# the reference does, and also keeps every document's text compressed with zlib until its output is
# over: a corpus that repeats itself shrinks to almost nothing, and the peak grows by far less than
# the check allows.
# Expected verdict: the check's documents are random text, which zlib cannot shrink much: the held
# copy shows, and test_the_documents_are_spooled_not_held fails; every other check passes.
import zlib

_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    held = []

    def keeping(source):
        for doc in source:
            held.append(zlib.compress(doc.text.encode("utf-8"), 9))
            yield doc

    def run():
        yield from _reference_exact_dedup(keeping(docs), bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
        held.clear()

    return run()
