"""A TCP and a UDP socket of the grader's on 127.0.0.1, to tell whether a worker reached them.

Both are non-blocking and read once the worker has answered (or exited): a connection it made has
completed its handshake by then and a datagram it sent is queued, so nothing here waits on a clock.
The preflight's isolation probe uses them, and so do the tests of every tier.
"""

from __future__ import annotations

import socket


class Listeners:
    """What reached 127.0.0.1 over TCP and UDP, payload by payload."""

    def __init__(self) -> None:
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        for sock in (self.tcp, self.udp):
            sock.setblocking(False)

    def ports(self) -> dict[str, int]:
        return {"tcp": self.tcp.getsockname()[1], "udp": self.udp.getsockname()[1]}

    def received(self) -> tuple[list[bytes], list[bytes]]:
        """Every payload that arrived (a connection that sent nothing counts as b""); then both are closed."""
        streams: list[bytes] = []
        datagrams: list[bytes] = []
        try:
            while True:
                connection, _ = self.tcp.accept()
                with connection:
                    connection.setblocking(False)
                    try:
                        streams.append(connection.recv(100))
                    except BlockingIOError:
                        streams.append(b"")
        except BlockingIOError:
            pass
        try:
            while True:
                datagrams.append(self.udp.recv(100))
        except BlockingIOError:
            pass
        finally:
            self.tcp.close()
            self.udp.close()
        return streams, datagrams
