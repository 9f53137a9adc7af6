"""The external-sort implementation root: its own ``dedup``; ``doc``, ``hashing`` and ``bloom`` are the reference's.

The package's search path continues into the reference's ``corpus`` folder (``impl/corpus``, a
sibling root in a checkout and in the installed wheel alike), so ``corpus.bloom`` here is the very
file the reference and the submissions use, never a copy that could drift from it.
"""

from pathlib import Path

__path__.append(str(Path(__file__).resolve().parents[2] / "impl" / "corpus"))
