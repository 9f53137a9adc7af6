"""Grade reports, one module per format: terminal, JSON, Gradescope, JUnit, CSV, and the HTML page.

Every format but the terminal one is exact output: keys sorted, no timestamps, and timing only in the
fields named in ``TIMING_FIELDS`` (the one thing two gradings of the same submission may disagree on:
JUnit's ``time`` of a suite and of each check, the HTML page's ``seconds`` column).
"""

from __future__ import annotations

TIMING_FIELDS = ("execution_time", "seconds", "time")
