"""What can go wrong in the grading worker, as the checks see it, and the submission's own exceptions.

A ``WorkerFault`` is a ``BaseException``: no check catches it, and Hypothesis does not shrink and
replay it. The submission's own exceptions come back as one of a short list of builtin types
(``wire.MAPPED``), with their message. Every fault, and every attempt the worker refused, is an
``Event`` in the report.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Any

from dedup_harness.grade.worker.wire import WireError, mapped_type


class WorkerFault(BaseException):
    """The worker failed in a way that must end the check, whatever the check catches."""

    kind = "fault"


class WorkerTimeout(WorkerFault):
    kind = "timeout"
    outcome = "timeout"  # how dedup_harness.core.outcome_recorder classifies a check it ends


class WorkerCrashed(WorkerFault):
    kind = "crash"


class SubmissionExited(WorkerFault):
    kind = "exit"


class SandboxFailed(WorkerFault):
    """The worker could not start or confine itself: the grader's failure, never the submission's."""

    kind = "sandbox"


class SubmissionBroken(WorkerFault):
    """The submission cannot be imported, or lacks the name a check asked for."""

    kind = "import"


@dataclass
class Event:
    check: str
    kind: str
    detail: str


def rebuild_error(error: Any) -> BaseException:
    """The submission's exception as one of the MAPPED builtin types, with its own message."""
    if type(error) is not dict:
        raise WireError("malformed error reply")
    kind = mapped_type(error.get("type"))
    origin, message = str(error.get("origin", "")), str(error.get("message", ""))
    text = message if origin == kind.__name__ else f"{origin}: {message}"
    if where := str(error.get("where", "")):
        text += f" (at {where})"
    return kind(text) if kind is not KeyError else KeyError(message)


def describe_status(status: int | None, mode: str) -> str:
    """The worker's exit status in words. Through bubblewrap a death by signal N shows as 128 + N."""
    if status is None:
        return "is still running"
    number = -status if status < 0 else status - 128 if mode == "bubblewrap" and 128 < status < 160 else 0
    if number:
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else f"signal {number}"
        why = {
            "SIGSEGV": " (a crash: segmentation fault)",
            "SIGXCPU": " (its CPU time ran out)",
            "SIGXFSZ": " (it wrote a file past the size limit)",
            "SIGKILL": " (killed)",
            "SIGABRT": " (aborted)",
        }.get(name, "")
        return f"was killed by {name}{why}"
    return f"exited with status {status}"
