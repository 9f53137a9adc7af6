# base: reference
# Tries: to outrun the watch on a disk it shares with the submission graded beside it. At import a
# thread plants 20,000 folders of 4 empty files each in its working folder (100,000 entries: a watch
# that walks them all on every look spends its time walking, and a watch that backs off after a long
# walk looks seldom), then writes 32 MB files there as fast as it can, ignoring every error. The
# stage itself is the reference's.
# Expected verdict: "disk full" on the checks it ran (past the files and folders its own tmpfs would
# hold, or past its limit), never a harness error; the temp folder never fills: the submission graded
# beside it in the same batch keeps every point.
import os
import threading

_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)
_BLOCK = b"\1" * (32 << 20)


def _plant_then_fill(place):
    forest = os.path.join(place, "forest")
    try:
        os.mkdir(forest)
        for i in range(20000):
            folder = os.path.join(forest, str(i))
            os.mkdir(folder)
            for j in range(4):
                open(os.path.join(folder, str(j)), "wb").close()
    except OSError:
        pass
    n = 0
    while True:
        n += 1
        try:
            with open(os.path.join(place, f"fill-{n}"), "wb") as file:
                file.write(_BLOCK)
        except OSError:
            pass


threading.Thread(target=_plant_then_fill, args=(os.getcwd(),), name="outrun", daemon=True).start()


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    return _reference_exact_dedup(docs, bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
