"""The grader's end of the pipes to one worker: JSON lines out and in, each within a time limit.

It knows bytes and deadlines, not what the messages mean; the proxy turns what goes wrong here into
the faults the checks see. A reply is one line holding a JSON object; more than ``MAX_REPLY`` bytes
without a line end is a flood, not an answer.
"""

from __future__ import annotations

import json
import os
import select
import time
from collections.abc import Callable
from typing import Any

MAX_REPLY = 8 << 20  # a reply is one document or a few values (or a batch of outputs read to the end)
WATCH_EVERY = 0.25  # seconds between two calls of the caller's watch while a reply is awaited


class ChannelTimeout(Exception):
    """The worker did not read or answer within the time given."""


class ChannelClosed(Exception):
    """The worker's end is gone: it exited or was killed."""


class ChannelGarbage(Exception):
    """The worker sent something that is not a line holding a JSON object; the message says what."""


class Channel:
    """Line-delimited JSON over the two pipes of one worker."""

    def __init__(self, request_fd: int, reply_fd: int) -> None:
        self.request_fd = request_fd
        self.reply_fd = reply_fd
        self.buffer = bytearray()
        self.waited = 0.0  # seconds the last receive spent waiting (also when it raised)

    def send(self, message: dict[str, Any], timeout: float) -> None:
        data = memoryview((json.dumps(message, allow_nan=False) + "\n").encode())
        deadline = time.monotonic() + timeout
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChannelTimeout
            _, writable, _ = select.select([], [self.request_fd], [], remaining)
            if writable:
                try:
                    data = data[os.write(self.request_fd, data[: 1 << 16]) :]
                except BrokenPipeError:
                    raise ChannelClosed from None

    def receive(self, limit: float, watch: Callable[[], None]) -> dict[str, Any]:
        """The next reply within ``limit`` seconds; ``watch()`` runs every WATCH_EVERY seconds meanwhile
        (it may raise: a disk filler is stopped mid-call)."""
        started = time.monotonic()
        try:
            while (end := self.buffer.find(b"\n")) < 0:
                if len(self.buffer) > MAX_REPLY:
                    raise ChannelGarbage(f"a reply over {MAX_REPLY >> 20} MiB")
                remaining = started + limit - time.monotonic()
                if remaining <= 0:
                    raise ChannelTimeout
                readable, _, _ = select.select([self.reply_fd], [], [], min(remaining, WATCH_EVERY))
                watch()
                if readable:
                    chunk = os.read(self.reply_fd, 1 << 20)
                    if not chunk:
                        raise ChannelClosed
                    self.buffer += chunk
        finally:
            self.waited = time.monotonic() - started
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        return parse_reply(line)


def parse_reply(line: bytes) -> dict[str, Any]:
    try:
        reply = json.loads(line)
    except (ValueError, RecursionError):
        raise ChannelGarbage("a reply that is not JSON") from None
    if type(reply) is not dict:
        raise ChannelGarbage("a reply that is not an object")
    return reply
