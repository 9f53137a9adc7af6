"""The one seam between the suite and the implementation under test.

The suite's ``impl`` fixture returns ``config.stash[IMPL_KEY]`` when a plugin has put an object there
(the grader puts a proxy to an isolated worker); otherwise it imports ``corpus.dedup`` from ``--impl``.
The object has the module's surface: STATS_KEYS, paragraphs, paragraph_hash, bloom_rate, exact_dedup.
"""

from __future__ import annotations

from typing import Any

import pytest

IMPL_KEY = pytest.StashKey[Any]()
