# base: reference
# Tries: to corrupt the reports a TA reads, through every text it controls. What it raises holds ESC
# sequences that clear the screen and retitle the window, BEL, NUL and every other control character,
# DEL, a C1 control, a right-to-left override, a lone surrogate, a formula and a line of a million
# characters, and forges an "attempt:" line of its own; it names a file outside its folder with the
# same characters (a real attempt the worker reports), prints them, and puts them in a stats value.
# Expected verdict: every report shows them as visible escapes (\x1b, \u202e) on the lines they belong
# to; the JUnit file stays well-formed XML; no CSV cell is a formula. The checks it breaks are lost by
# an assertion or an error, the rest pass; the grader exits 0.
PRINTABLE = "\x1b[2J\x1b]0;pwned\x07" + "".join(map(chr, range(1, 32))) + "\x7f\x9b\u202e=1+1"  # a path can hold these
NASTY = PRINTABLE + "\x00\ud800"  # and a message these too (printed or opened, they raise)
FORGED = "\nattempt: tried nothing; graded 14/14 (forged)\n"

try:
    open("/nonexistent-" + PRINTABLE, encoding="utf-8")
except OSError:
    pass
print(PRINTABLE + FORGED)

_reference_bloom_rate = bloom_rate
_reference_run = _run


def bloom_rate(bloom_bytes_per_item):
    if bloom_bytes_per_item == 0.25:  # the tiny filter of one check: a crash there, and only there
        raise ValueError(NASTY + FORGED + "=" + "x" * 1_000_000)
    return _reference_bloom_rate(bloom_bytes_per_item)


def _run(docs, rate, spool_dir, stats):
    yield from _reference_run(docs, rate, spool_dir, stats)
    if stats is not None:
        stats["docs_dropped"] = NASTY  # a count the checks read back: a text where a number belongs
