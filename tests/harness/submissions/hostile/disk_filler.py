# base: reference
# Tries: to fill the disk. exact_dedup writes 32 MB files into spool_dir (on the grader's disk),
# its home and the temp folder until something stops it, ignoring every error.
# Expected verdict: a "disk" event (or a timeout), the checks that run it do not pass, and nothing
# of its files is left.
import os
import tempfile


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    block = b"\0" * (32 << 20)
    places = [spool_dir or tempfile.gettempdir(), os.getcwd(), tempfile.gettempdir()]
    n = 0
    while True:
        for place in places:
            n += 1
            try:
                with open(os.path.join(place, f"fill-{n}"), "wb") as f:
                    f.write(block)
            except OSError:
                pass
