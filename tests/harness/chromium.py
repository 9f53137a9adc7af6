"""Headless Chromium driven over the DevTools protocol on a pipe: open a page from a file, read its DOM.

Chromium's ``--remote-debugging-pipe`` reads commands on its file descriptor 3 and writes replies and
events on 4 (put there in the child before it starts), each a JSON text ended by a NUL byte: no port,
no websocket, no package beyond the standard library, and no browser download (Debian's
``chromium``, or the one ``CHROMIUM`` names). Every wait is a ``select`` on the pipe with a deadline,
never a sleep.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)
TIMEOUT = 30.0  # seconds for any one reply or event


def executable() -> str | None:
    """The Chromium to drive: $CHROMIUM, else the first of Debian's names on the PATH."""
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(RuntimeError):
    """Chromium answered a command with an error, or said nothing in time."""


@dataclass
class Page:
    """One tab: what its console said, what it asked the network for, and the means to ask it things."""

    browser: Browser
    session: str
    errors: list[str] = field(default_factory=list)  # console errors and uncaught exceptions
    requests: list[str] = field(default_factory=list)  # every URL the page asked for

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session)

    def evaluate(self, expression: str) -> Any:
        reply = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression!r} threw: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path


class Browser:
    """A Chromium process and the two ends of its pipe."""

    def __init__(self, process: subprocess.Popen[bytes], commands: int, replies: int) -> None:
        self.process, self.commands, self.replies = process, commands, replies
        self.buffer = b""
        self.next_id = 0
        self.pages: dict[str, Page] = {}

    def send(self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        reply = self._until(lambda m: m.get("id") == self.next_id)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def wait_for(self, event: str, session: str) -> dict[str, Any]:
        return self._until(lambda m: m.get("method") == event and m.get("sessionId") == session)

    def open(self, url: str, *, width: int = 1200, height: int = 900) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = self.pages[session] = Page(self, session)
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.send(f"{domain}.enable")
        page.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        page.send("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired", session)
        page.evaluate("1")  # every event the load sent is in by the time this answers
        return page

    def _until(self, wanted: Any) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            while b"\0" in self.buffer:
                raw, _, self.buffer = self.buffer.partition(b"\0")
                message: dict[str, Any] = json.loads(raw)
                self._note(message)
                if wanted(message):
                    return message
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.replies], [], [], max(0.0, left))
            if not ready:
                raise BrowserError("Chromium said nothing in time")
            chunk = os.read(self.replies, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium closed its pipe (exit status {self.process.poll()})")
            self.buffer += chunk

    def _note(self, message: dict[str, Any]) -> None:
        """Keep what a page's console and network said, whatever we were waiting for."""
        page = self.pages.get(message.get("sessionId", ""))
        if page is None:
            return
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            page.errors.append(json.dumps(params["exceptionDetails"])[:500])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            page.errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            page.errors.append(params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            page.requests.append(params["request"]["url"])


@contextmanager
def chromium(path: str) -> Iterator[Browser]:
    """A headless Chromium with a fresh profile, closed (and its profile removed) on the way out."""
    to_browser, commands = os.pipe()
    replies, from_browser = os.pipe()

    def wire() -> None:  # in the child, before exec: our pipe's ends where Chromium looks for them
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser)]  # out of 3 and 4's way
        os.dup2(high[0], 3)
        os.dup2(high[1], 4)

    with tempfile.TemporaryDirectory(prefix="dedup-harness-chromium-") as profile:
        argv = [path, *FLAGS, f"--user-data-dir={profile}", "about:blank"]
        process = subprocess.Popen(
            argv, pass_fds=(3, 4), preexec_fn=wire, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        os.close(to_browser)
        os.close(from_browser)
        browser = Browser(process, commands, replies)
        try:
            yield browser
        finally:
            try:
                browser.send("Browser.close")
            except (BrowserError, OSError):
                process.kill()
            process.wait(timeout=TIMEOUT)
            os.close(commands)
            os.close(replies)
