"""The grading worker's sandbox: its session folder, its user, its limits and the isolation tier it runs in."""

from dedup_harness.grade.sandbox.limits import Limits
from dedup_harness.grade.sandbox.protections import Protections
from dedup_harness.grade.sandbox.session import Sandbox, WorkerProcess

__all__ = ["Limits", "Protections", "Sandbox", "WorkerProcess"]
