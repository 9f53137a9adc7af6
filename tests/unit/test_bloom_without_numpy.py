"""Without numpy (as in the grading worker) the reference imports and its filter screens item by item."""

from __future__ import annotations

import os
import subprocess
import sys

from dedup_harness.paths import IMPL_ROOT


def test_without_numpy_the_filter_imports_and_screens_per_item() -> None:
    code = (
        "import sys; sys.modules['numpy'] = None\n"  # makes `import numpy` raise ImportError
        "import corpus.bloom as b, corpus.dedup\n"
        "f = b.BloomFilter(5, 0.01); print(b._numpy_screen is None, f.screen_batch([b'a', b'b', b'a']))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(IMPL_ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.strip() == "True [False, False, True]"
