"""The worker's stdout and stderr: drained on a thread, the first bytes kept, the rest counted."""

from __future__ import annotations

import os
import threading


class OutputTrap:
    """Drains the worker's stdout and stderr on a thread, keeping the first ``keep`` bytes."""

    def __init__(self, fd: int, keep: int) -> None:
        self.keep = keep
        self.head = bytearray()
        self.total = 0
        self.thread = threading.Thread(target=self._drain, args=(fd,), name="worker-output", daemon=True)
        self.thread.start()

    def _drain(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(1 << 16):
                self.total += len(chunk)
                if len(self.head) < self.keep:
                    self.head += chunk[: self.keep - len(self.head)]

    def text(self) -> str:
        self.thread.join(timeout=1)
        text = self.head.decode("utf-8", "replace")
        if self.total > len(self.head):
            text += f"\n[... {self.total - len(self.head)} more bytes of output dropped]"
        return text
