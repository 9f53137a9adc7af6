# base: reference
# Tries: to reach the network (to fetch answers, or to leak the tests): a TCP connection and a DNS
# lookup at import time.
# Expected verdict: "tried to open a network connection" attempts; both fail ("Network is
# unreachable" or no name resolution); the checks pass.
import socket

for _target in [("1.1.1.1", 80), ("pypi.org", 443)]:
    try:
        socket.create_connection(_target, timeout=2).close()
        print("network: reached", _target)
    except OSError as _error:
        print("network: blocked", _target, _error)
