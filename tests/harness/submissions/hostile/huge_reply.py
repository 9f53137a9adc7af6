# base: reference
# Tries: to exhaust the grader's memory from the other side: paragraphs answers the grader with 12 MB
# of text, which the grader would have to read and rebuild. Its own stage splits as the reference does.
# Expected verdict: the reply is refused unread past the limit on one message ("output too large":
# "more than 8 MiB in one message"), the worker is stopped, the check errors.
import sys

_reference_paragraphs = paragraphs  # noqa: F821 (the reference's, defined above this part)


def paragraphs(text):
    if sys._getframe(1).f_globals is globals():  # the stage's own call
        return _reference_paragraphs(text)
    return ["x" * (12 << 20)]
