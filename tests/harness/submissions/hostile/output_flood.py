# base: reference
# Tries: to flood the grader with output: 64 MB on stdout and stderr at import and in every call.
# Expected verdict: an "output" event, the captured output cut to the limit; the checks pass.
import sys

_CHUNK = "spam " * 200_000  # 1 MB
for _ in range(32):
    sys.stdout.write(_CHUNK)
    sys.stderr.write(_CHUNK)
_honest = paragraph_hash


def paragraph_hash(p):
    print("hashing", p[:20])
    return _honest(p)
