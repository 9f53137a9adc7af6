# base: reference
# Tries: to exhaust the grader's memory from the other side: paragraphs answers with 12 MB of text,
# which the grader would have to read and rebuild.
# Expected verdict: the reply is refused unread past the limit on one message ("output too large":
# "more than 8 MiB in one message"), the worker is stopped, the check errors.


def paragraphs(text):
    return ["x" * (12 << 20)]
