# base: reference
# Tries: to forge a pass of the memory check with slack the allocator keeps. At import it allocates
# 60 MB in 64 KiB blocks, touches every page and frees every other block: nothing is given back (each
# free block lies between two in use), so the worker's resident size stays 60 MB and 30 MB of it is
# free for the allocator to hand out again. The stage then spools as the reference does, but also
# keeps every document it reads until its output is over: the held documents land in that slack, and
# the resident size does not grow with them.
# Expected verdict: the grader counts the memory the stage touches, not only what became resident:
# test_the_documents_are_spooled_not_held fails; every other check passes.
_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)

_slab = [bytearray(64 << 10) for _ in range(960)]
for _block in _slab:
    for _page in range(0, len(_block), 4096):
        _block[_page] = 1
del _slab[::2]


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    held = []

    def keeping(source):
        for doc in source:
            held.append(doc)
            yield doc

    def run():
        yield from _reference_exact_dedup(keeping(docs), bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
        held.clear()

    return run()
