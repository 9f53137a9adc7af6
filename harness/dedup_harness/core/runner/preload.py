"""What the fork server does once for all its children: the imports, and the suite's big corpora.

Every child is forked from a process that has already imported pytest, Hypothesis and the harness,
that has already made the suite's large seeded corpora (``corpora.SUITE_CORPORA``), and whose
Hypothesis has already looked up the characters of every Unicode category the strategies draw from.
Only the fork server imports this module; an ordinary pytest run never does.
"""

from __future__ import annotations

import concurrent.futures.thread  # noqa: F401  (the external sort's Bloom batch path starts a helper thread)
import contextlib
import importlib

import _pytest.config
import hypothesis  # noqa: F401
import pytest  # noqa: F401

from dedup_harness.core import corpora, outcome_recorder, profiles, strategies  # noqa: F401

with contextlib.suppress(ImportError):  # the external sort's Bloom batch path (verify runs it)
    import numpy.typing  # noqa: F401

# pytest imports most of its own plugins only as a session starts, so each child would import them again.
for _name in getattr(_pytest.config, "default_plugins", ()):
    with contextlib.suppress(ImportError):
        importlib.import_module(f"_pytest.{_name}")

for _corpus in corpora.SUITE_CORPORA:
    corpora.suite_corpus(_corpus)
strategies.ANY_CHARACTER.validate()  # Hypothesis works out each Unicode category's characters once, here
