# base: reference
# Tries: to exhaust the grader's memory. paragraphs asks for far more memory than the limit allows.
# Expected verdict: the checks that split text error with MemoryError and a "memory" event.
_honest = paragraphs


def paragraphs(text):
    hoard = [bytearray(256 << 20) for _ in range(64)]  # 16 GiB, far past the limit
    return _honest(text) + [str(len(hoard))]
