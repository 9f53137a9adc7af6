# base: reference
# Tries: to crash or stall the grader with an answer nested far past any recursion limit: it patches
# the worker's channel so that every value it sends back becomes a JSON array nested 2,000,000 deep
# (4 MB of brackets, under the limit on one message).
# Expected verdict: the grader refuses the message unread ("nested too deeply to read", a
# "protocol" event), stops the worker, and the check errors; the grader's memory stays bounded.
import os
import sys

# Reached through sys.modules: an import statement naming the worker's package is refused before the
# worker starts, as any module the course does not allow is.
_channel = sys.modules["grading_worker.protocol"]
_messages = sys.modules["grading_worker.protocol"]

_DEPTH = 2_000_000
_send = _channel.Channel.send


def _nested(self, message, deadline=None):
    if message.get(_messages.KIND) != _messages.VALUE:
        return _send(self, message, deadline)
    head = b'{"kind":"value","re":%d,"mirrors":[],"value":' % message[_messages.RE]
    view = memoryview(head + b"[" * _DEPTH + b"]" * _DEPTH + b"}\n")
    with self.lock:
        while view:
            view = view[os.write(self.write_fd, view) :]


_channel.Channel.send = _nested
