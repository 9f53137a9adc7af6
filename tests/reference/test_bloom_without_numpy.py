"""Without numpy (as in the grading worker) the reference imports, and pass 2 runs screen()'s own loop."""

from __future__ import annotations

import os
import subprocess
import sys

from dedup_harness.core.paths import IMPL_ROOT


def test_without_numpy_the_stage_imports_and_screens_item_by_item() -> None:
    code = (
        "import sys; sys.modules['numpy'] = None\n"  # makes `import numpy` raise ImportError
        "import corpus.dedup as d; from corpus.doc import Doc\n"
        "docs = [Doc('a', 'x\\n\\ny'), Doc('b', 'y'), Doc('c', 'x\\n\\nz')]\n"
        "print(d._numpy_candidates is None, [x.id for x in d.exact_dedup(docs)])"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(IMPL_ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.strip() == "True ['a', 'c']"
