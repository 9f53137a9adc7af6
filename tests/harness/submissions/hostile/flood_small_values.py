# base: reference
# Tries: to make one answer just under the limit cost the grader the most memory to rebuild:
# paragraphs() answers the grader with 900,000 short distinct strings (about 8 bytes each on the
# wire, some 60 bytes each once rebuilt in the grader). Its own stage splits as the reference does
# (the stage's output floods are flood_endless_documents' and flood_medium_replies').
# Expected verdict: the checks that call paragraphs() fail; the grader's memory stays bounded.
import sys

_MANY = [format(n, "x") for n in range(900_000)]
_reference_paragraphs = paragraphs  # noqa: F821 (the reference's, defined above this part)


def paragraphs(text):
    if sys._getframe(1).f_globals is globals():  # the stage's own call
        return _reference_paragraphs(text)
    return _MANY
