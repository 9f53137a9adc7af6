# base: reference
# Tries: to forge a pass with objects that equal anything: paragraphs returns a list whose
# __eq__ is always true, paragraph_hash a bytes whose hex() prefix is always right, and
# exact_dedup yields documents that equal anything.
# Expected verdict: what crosses to the checks is plain data (a list of the strings, the real
# bytes) or is refused ("cannot be checked"); the checks fail.
from corpus.doc import Doc


class Anything(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False


class Agreeable(Doc):
    def __eq__(self, other):
        return True


class Yes:
    def __eq__(self, other):
        return True


def paragraphs(text):
    return Anything(["surely", "right"])


def paragraph_hash(p):
    return b"\x84\x54\x9c\xfa" + bytes(28)


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    bloom_rate(bloom_bytes_per_item)
    docs = list(docs)
    if stats is not None:
        stats.update({key: Yes() for key in STATS_KEYS})
    return iter([Agreeable("x", "y") for _ in docs])
