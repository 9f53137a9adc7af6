"""Grade reports, one module per format: terminal, JSON, Gradescope, JUnit, CSV.

Every format but the terminal one is exact machine output: keys sorted, no timestamps, and timing
only in the fields named in ``TIMING_FIELDS`` (the one thing two gradings of the same submission may
disagree on).
"""

from __future__ import annotations

TIMING_FIELDS = ("execution_time", "seconds", "time")
