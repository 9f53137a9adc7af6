# Tries: nothing on purpose. A syntax error: the file does not compile.
# Expected verdict: a "syntax" problem naming the line; every check fails (error), none passes.
from corpus.doc import Doc

STATS_KEYS = ("docs_in",)


def paragraphs(text: str) -> list[str]:
    return [p for p in text.split("\n\n") if p.strip(]
