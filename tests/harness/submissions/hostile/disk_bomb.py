# base: reference
# Tries: to take the disk from the submission graded beside it. exact_dedup starts a thread that
# writes 48 MB files into spool_dir (then its home, then /tmp) as fast as it can, ignoring every
# error, and runs the reference's stage meanwhile.
# Expected verdict: "disk full" on the checks it ran (its space is its own, and it filled it), never
# a harness error; the submission graded beside it in the same batch keeps every point.
import os
import threading

_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)
_BLOCK = b"\1" * (48 << 20)


def _fill(places):
    n = 0
    while True:
        for place in places:
            n += 1
            try:
                with open(os.path.join(place, f"bomb-{os.getpid()}-{n}"), "wb") as file:
                    file.write(_BLOCK)
            except OSError:
                pass


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    places = [str(spool_dir)] if spool_dir is not None else []
    places += [os.getcwd(), "/tmp"]
    threading.Thread(target=_fill, args=(places,), name="bomb", daemon=True).start()
    return _reference_exact_dedup(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
