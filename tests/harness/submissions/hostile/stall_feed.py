# base: reference
# Tries: to cost the batch more time than its budget: once its stage has read 256 KiB of a large
# input, it asks the grader for the next batch of documents and never reads it. The grader's write
# of that batch blocks on a full pipe (a batch is larger than the pipe holds).
# Expected verdict: every second the grader waits to write counts against the submission's budget;
# the check with large inputs (14) times out, by its call's window or by the budget, whichever ends
# first; the others pass; the submission costs the batch its budget and no more.
import sys
import threading

# Reached through sys.modules: an import statement naming the worker's package is refused.
_channel = sys.modules["grading_worker.protocol"]
_receive = _channel.Channel.receive
_STALL = threading.Event()
_ENOUGH = 1 << 18  # characters read before it stalls: past what one pipe holds


def _stalling(self):
    if _STALL.is_set():
        threading.Event().wait()  # the grader's feed is never read
    return _receive(self)


_channel.Channel.receive = _stalling
_honest = exact_dedup


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    def counted():
        seen = 0
        for doc in docs:
            seen += len(doc.text)
            if seen > _ENOUGH:
                _STALL.set()  # the next pull is sent, and its feed never read
            yield doc

    yield from _honest(counted(), bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
