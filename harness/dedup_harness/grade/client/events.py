"""The events of one submission's grade: every fault, refusal and note, each filed under the check running.

Each is an ``Event`` in the report: its kind, then one line in plain words. The log also keeps, per
check, the categories of the rules (``worker/categories.py``) its worker's refusals met: those refused
while it ran, else those refused its worker before it, since the listener and the hook say a refusal
once per worker (a pool refused in the first check is refused again, unreported, in every later one).
"""

from __future__ import annotations

from dataclasses import dataclass

from dedup_harness.grade.client.faults import OutputTooLarge
from dedup_harness.grade.worker.categories import CATEGORIES, NONE
from dedup_harness.grade.worker.protocol import MAX_ATTEMPTS


@dataclass
class Event:
    check: str
    kind: str
    detail: str
    category: str = NONE  # a refusal's or a note's rule (``worker/categories.py``), when it met one


# Said once per submission: the same attempt or missing name at every call would drown the report.
ONCE_PER_SUBMISSION = ("attempt", "refused", "missing")
ONCE_PER_CHECK = (OutputTooLarge.kind,)  # one line per check, however many of its calls hit the cap


class EventLog:
    """The events of one submission, each filed under the check that was running."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.check = "(before the checks)"
        self.unlisted = {"refused": 0, "attempt": 0}  # refusals and notes past MAX_ATTEMPTS: counted, not listed
        self.worker_refused: set[str] = set()  # the categories the running worker was refused so far
        self.during: dict[str, set[str]] = {}  # by check: those refused while it ran
        self.before: dict[str, set[str]] = {}  # by check: those its worker was refused before it began

    def begin(self, check: str) -> None:
        """``check`` starts (a parametrized check once per case): its events are filed under it."""
        self.check = check
        self.before.setdefault(check, set()).update(self.worker_refused)

    def new_worker(self) -> None:
        """A new incarnation of the worker starts: it has been refused nothing yet."""
        self.worker_refused = set()

    def refused(self) -> dict[str, list[str]]:
        """By check, the categories of the rules its worker's refusals met (see the module's docstring)."""
        checks = self.before.keys() | self.during.keys()
        found = {check: self.during.get(check) or self.before.get(check, set()) for check in checks}
        return {check: [c for c in CATEGORIES if c in categories] for check, categories in found.items() if categories}

    def record(self, kind: str, detail: str, *, category: str = NONE) -> None:
        """An event of the running check; a refusal's ``category`` is kept even when its words are said already."""
        if category != NONE:
            self.worker_refused.add(category)
            self.during.setdefault(self.check, set()).add(category)
        event = Event(self.check, kind, detail, category)
        if kind in ONCE_PER_SUBMISSION and any(e.kind == kind and e.detail == detail for e in self.events):
            return
        if kind in ONCE_PER_CHECK and event in self.events:
            return
        # Attempt notices come from the worker, which the submission can make send anything: a few do. The
        # kernel's refusals count apart, so a flood of notices cannot crowd them out.
        if kind in self.unlisted and sum(e.kind == kind for e in self.events) >= MAX_ATTEMPTS:
            self.unlisted[kind] += 1
            return
        self.events.append(event)

    def close(self) -> None:
        """At the end: a flood of refusals must not pass for a few, so it is said how many went unlisted."""
        for kind, more in self.unlisted.items():
            if more:
                self.events.append(Event(self.check, kind, f"and {more} more, not listed one by one"))
