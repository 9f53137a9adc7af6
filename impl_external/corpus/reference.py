"""The reference's stage (``impl/corpus/dedup.py``) under the name ``corpus.reference``.

The external sort takes its paragraph rules, its digests, its rate and its first pass from the
reference rather than copying them; this root's own ``corpus.dedup`` is the external stage, so the
reference's file is loaded here under another name.
"""

import importlib.util
import sys
from pathlib import Path

_SOURCE = Path(__file__).resolve().parents[2] / "impl" / "corpus" / "dedup.py"
_spec = importlib.util.spec_from_file_location(__name__, _SOURCE)
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
sys.modules[__name__] = _module  # the import statement that loaded this file gets the reference's module
_spec.loader.exec_module(_module)
