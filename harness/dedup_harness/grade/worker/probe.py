"""The grader's isolation probe: the worker tries, on the grader's behalf, what a submission must not do.

The preflight asks a worker running the reference (never a student's code) to read the harness's
own files, reach listeners the grader opened on 127.0.0.1 over TCP and UDP, and signal the grader.
Each try's result is ``"ok"`` (it worked: the isolation does not hold) or the name of the errno
that stopped it. The grader also checks that its listeners received nothing. It also imports each
package the course allows, as a submission would: ``"ok"``, or the error that stopped it.
"""

from __future__ import annotations

import errno
import functools
import os
from collections.abc import Callable
from typing import Any

PAYLOAD = b"dedup-harness isolation probe"


def _result(action: Callable[[], object]) -> str:
    try:
        action()
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, str(error.errno))
    return "ok"


def _read(path: str) -> None:
    with open(path, "rb") as file:
        file.read(1)


def _tcp(port: int) -> None:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
        connection.sendall(PAYLOAD)


def _udp(port: int) -> None:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as datagrams:
        datagrams.sendto(PAYLOAD, ("127.0.0.1", port))


def _imported(module: str) -> str:
    try:
        __import__(module)
    except Exception as error:  # whatever stops it, said in one line
        return f"{type(error).__name__}: {error}"[:300]
    return "ok"


def run(request: dict[str, Any]) -> dict[str, Any]:
    """Every try the request names, by kind: ``read`` and ``import`` (a result by path, by module), ``tcp``,
    ``udp`` and ``signal`` (a result each)."""
    results: dict[str, Any] = {
        "read": {path: _result(functools.partial(_read, path)) for path in request.get("read", [])},
        "import": {module: _imported(module) for module in request.get("import", [])},
    }
    if "tcp" in request:
        results["tcp"] = _result(lambda: _tcp(int(request["tcp"])))
    if "udp" in request:
        results["udp"] = _result(lambda: _udp(int(request["udp"])))
    if "signal" in request:
        results["signal"] = _result(lambda: os.kill(int(request["signal"]), 0))
    return results
