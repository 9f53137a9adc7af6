"""One end of the pipes between the grader and its worker: a JSON object per line, the same class on both sides.

It knows bytes, lines and deadlines, not what the messages mean (``messages`` does). The grader,
which trusts nothing that arrives, gives every wait a deadline and refuses a line longer than
``longest`` before reading more of it; the worker, which trusts the grader, waits as long as it
takes. Standard library only: the worker imports it inside the sandbox.
"""

from __future__ import annotations

import json
import os
import select
import threading
import time
from typing import Any

CHUNK = 1 << 20  # bytes read or written at a time


class ChannelTimeout(Exception):
    """The other side did not read or answer within the time given."""


class ChannelClosed(Exception):
    """The other side's end is gone: it exited or was killed."""


class ChannelGarbage(Exception):
    """A line that is not a JSON object; the message says what it is."""


class ChannelOverflow(Exception):
    """More than ``longest`` bytes without a line end: the line was not read to its end."""


class Channel:
    """Line-delimited JSON over two file descriptors: one to read from, one to write to."""

    def __init__(self, read_fd: int, write_fd: int, *, longest: int | None = None) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd
        self.longest = longest
        self.buffer = bytearray()
        # In the worker, the audit hook may send a notice from a submission's thread mid-send: one
        # line at a time, whole.
        self.lock = threading.Lock()

    def send(self, message: dict[str, Any], deadline: float | None = None) -> None:
        """Write one message; past ``deadline`` (a ``time.monotonic()`` value) it is a ChannelTimeout."""
        view = memoryview(encode_line(message))
        with self.lock:
            if deadline is not None and os.get_blocking(self.write_fd):
                os.set_blocking(self.write_fd, False)  # a write into a full pipe never waits past the deadline
            while view:
                if deadline is not None and not _ready(self.write_fd, deadline, writing=True):
                    raise ChannelTimeout
                try:
                    view = view[os.write(self.write_fd, view[:CHUNK]) :]
                except BlockingIOError:
                    continue  # the other side read less than select promised: wait again
                except BrokenPipeError:
                    raise ChannelClosed from None

    def receive(self) -> dict[str, Any]:
        """The next message, however long it takes (the worker's side)."""
        return parse_line(self.receive_line())

    def receive_line(self, deadline: float | None = None) -> bytes:
        """The next line, without its end; past ``deadline`` it is a ChannelTimeout."""
        while (end := self.buffer.find(b"\n")) < 0:
            if self.longest is not None and len(self.buffer) > self.longest:
                raise ChannelOverflow
            if deadline is not None and not _ready(self.read_fd, deadline, writing=False):
                raise ChannelTimeout
            chunk = os.read(self.read_fd, CHUNK)
            if not chunk:
                raise ChannelClosed
            self.buffer += chunk
        if self.longest is not None and end > self.longest:
            raise ChannelOverflow
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        return line


def _ready(fd: int, until: float, *, writing: bool) -> bool:
    """Is ``fd`` ready to read (or write) before ``until``?"""
    remaining = max(0.0, until - time.monotonic())
    ready = select.select([], [fd], [], remaining)[1] if writing else select.select([fd], [], [], remaining)[0]
    return bool(ready)


def encode_line(message: dict[str, Any]) -> bytes:
    """A message as one line: ASCII JSON (a lone surrogate in a string survives as an escape)."""
    return (json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":")) + "\n").encode("ascii")


def parse_line(line: bytes) -> dict[str, Any]:
    """A line back into a message; anything but a JSON object is a ChannelGarbage."""
    try:
        message = json.loads(line)
    except RecursionError:
        raise ChannelGarbage("a message nested too deeply to read") from None
    except ValueError:
        raise ChannelGarbage("a message that is not JSON") from None
    if type(message) is not dict:
        raise ChannelGarbage("a message that is not an object")
    return message
