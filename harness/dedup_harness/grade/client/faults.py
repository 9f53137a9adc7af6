"""What can go wrong in the grading worker, as the checks see it.

A ``WorkerFault`` is a ``BaseException``: no check catches it, and Hypothesis does not shrink and
replay it. The submission's own exceptions come back as one of a short list of builtin types
(``protocol.MAPPED``, rebuilt by ``protocol.rebuilt``), with their message. Every fault is also an event of
the report (``events``): its kind, then one line in plain words.
"""

from __future__ import annotations

import signal


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
    """The submission cannot be imported, or lacks the name a check asked for.

    ``raised``: the type of the exception its import raised, when that is why (a socket opened at import
    time is a PermissionError): the outcome recorder keeps it as the case's ``raised``.
    """

    kind = "import"

    def __init__(self, detail: str, *, raised: str = "") -> None:
        super().__init__(detail)
        self.raised = raised


IMPORT_FAILED = "the submission could not be imported"  # then ": " and the error the import raised


class OutputTooLarge(WorkerFault):
    """The submission sent the grader more bytes than a message, a call or a check may (``calls``)."""

    kind = "output too large"


def too_large_words(sent: str) -> str:
    """The one line a student reads when a check ends because the output was too large; ``sent`` says
    what sent how much (``budget.Overdrawn.words``)."""
    return f"{sent}; the grader read no further, and the next check starts with a fresh worker"


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
