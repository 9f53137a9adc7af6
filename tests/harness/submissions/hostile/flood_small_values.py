# base: reference
# Tries: to make one answer just under the limit cost the grader the most memory to rebuild:
# paragraphs() answers with 900,000 short distinct strings (about 8 bytes each on the wire, some
# 60 bytes each once rebuilt in the grader).
# Expected verdict: the checks that split text fail (the stage calls paragraphs() too, and its
# output floods in turn); the grader's memory stays bounded.
_MANY = [format(n, "x") for n in range(900_000)]


def paragraphs(text):
    return _MANY
