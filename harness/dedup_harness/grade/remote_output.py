"""An output of the submission's ``exact_dedup``: an iterator that lives in the worker, seen from the grader.

It is named to the worker by its output id, and belongs to the worker's incarnation that made it:
once that incarnation is stopped, the output is gone (a ``close`` then does nothing, a ``next`` is a
fault). It keeps alive what its call lent the worker (its input, its stats dict) as long as it lives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dedup_harness.grade.worker import messages as m

if TYPE_CHECKING:
    from dedup_harness.grade.exchange import Lent
    from dedup_harness.grade.proxy import SubmissionProxy

BATCHES = frozenset({m.BATCH})
NEXT = "next() on exact_dedup's output"  # what a student reads, for one next() and for read_all alike


class RemoteOutput:
    """``next``, ``close`` and ``read_all`` of an output in the worker, each one call of the module."""

    def __init__(self, proxy: SubmissionProxy, output_id: int, incarnation: int, lent: Lent) -> None:
        self.proxy = proxy
        self.output_id = output_id
        self.incarnation = incarnation
        self.lent = lent

    def __iter__(self) -> RemoteOutput:
        return self

    def __next__(self) -> Any:
        with self.proxy.budget.call():
            reply = self.proxy.on_output(m.NEXT, self)
            assert reply is not None
            return self.proxy.exchange.outcome(reply, NEXT)

    def close(self) -> None:
        with self.proxy.budget.call():
            reply = self.proxy.on_output(m.CLOSE, self)
            if reply is not None:
                self.proxy.exchange.outcome(reply, "close() on exact_dedup's output")

    def read_all(self) -> list[Any]:
        """Every output still to come, as ``list(self)`` gives it, a batch of documents per round trip."""
        outputs: list[Any] = []
        with self.proxy.budget.call():
            while True:
                reply = self.proxy.on_output(m.TAKE, self, BATCHES)
                assert reply is not None
                if reply.kind == m.STOP:
                    return outputs
                if reply.kind != m.BATCH:
                    self.proxy.exchange.outcome(reply, NEXT)  # raises the submission's error or exit
                outputs += reply.value
                if reply.done:
                    return outputs
