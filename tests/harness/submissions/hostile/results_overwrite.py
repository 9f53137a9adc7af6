# base: reference
# Tries: to forge a pass by overwriting results files: Gradescope's results.json, the grader's
# outcome files in /tmp, at import and again at exit. The stage itself is wrong: it drops every
# document.
# Expected verdict: no results file is changed; the checks fail.
import atexit
import glob
import json

FORGED = {"score": 100, "exitstatus": 0, "checks": {}}


def _forge():
    targets = ["/autograder/results/results.json", *glob.glob("/tmp/dedup-harness-*/*.json")]
    targets += glob.glob("/tmp/*/outcomes.json") + glob.glob("/tmp/**/grading.json", recursive=True)
    for target in targets:
        try:
            with open(target, "w") as f:
                json.dump(FORGED, f)
        except OSError:
            pass


_forge()
atexit.register(_forge)


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    bloom_rate(bloom_bytes_per_item)
    list(docs)
    return iter([])
