# -*- coding: latin-1 -*-
# base: reference
# Tries: nothing on purpose: correct code saved as Latin-1, with the PEP 263 coding cookie on its
# first line, as an editor set to Latin-1 saves it (the é of "Zoë" is one byte, 0xeb).
# Expected verdict: full marks; the grader reads the source as Python does (the cookie), and the
# worker imports the very bytes submitted.
_AUTHOR = "Zoë"
assert _AUTHOR.encode("latin-1") == b"Zo\xeb", "the source was not decoded as Latin-1"
