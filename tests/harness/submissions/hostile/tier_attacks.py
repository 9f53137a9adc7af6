# base: reference
# Tries, at import, everything a submission must not manage in any tier: TCP and UDP to listeners of
# the grader's on 127.0.0.1, reading the installed reference, signalling the grader's processes (a
# victim of the grader's user, its parent, everyone it may), finding a secret in the grader's
# environment, and overwriting the grader's output files. The test fills in ATTACK (ports, paths,
# pids) before grading. Its functions are the reference's: when every attack fails it gets full marks.
# Each network, file and signal attack is made twice: through Python (the worker's audit hook refuses
# it first) and through libc with ctypes (no audit event: only the kernel's layers can stop it).
# Expected verdict: full marks; every line of its log says "blocked"; nothing reached the targets.
import ctypes
import errno
import os
import signal
import socket
import struct

ATTACK = None  # the test puts its targets here
_log = []


def _try(name, action):
    try:
        action()
        _log.append(f"{name}: REACHED")
    except Exception as error:
        code = errno.errorcode.get(getattr(error, "errno", None) or 0, type(error).__name__)
        _log.append(f"{name}: blocked ({code})")


def _tcp():
    with socket.create_connection(("127.0.0.1", ATTACK["tcp"]), timeout=2) as connection:
        connection.sendall(b"leak")


def _udp():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as datagrams:
        datagrams.sendto(b"leak", ("127.0.0.1", ATTACK["udp"]))


def _read_reference():
    with open(ATTACK["reference"], encoding="utf-8") as source:
        print("the reference says:", source.read())


def _secret():
    found = [os.environ.get(ATTACK["secret_name"], "")]
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            for name in ("environ", "cmdline"):
                try:
                    with open(f"/proc/{pid}/{name}", "rb") as file:
                        found.append(file.read().decode("utf-8", "replace"))
                except OSError:
                    pass
    hits = [text for text in found if ATTACK["secret_name"] in text]
    print("the grader's environment:", hits)
    if not hits:
        raise LookupError("no secret found")


def _overwrite_outputs():
    folder = ATTACK["outputs"]
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as file:
            file.write("forged\n")
    with open(os.path.join(folder, "forged.txt"), "w", encoding="utf-8") as file:
        file.write("forged\n")


_libc = ctypes.CDLL(None, use_errno=True)


def _raw(result):
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
    return result


def _raw_send(kind, payload):
    address = struct.pack("<H", socket.AF_INET) + struct.pack(">H", ATTACK[kind]) + socket.inet_aton("127.0.0.1")
    address += bytes(8)
    fd = _raw(_libc.socket(socket.AF_INET, socket.SOCK_STREAM if kind == "tcp" else socket.SOCK_DGRAM, 0))
    try:
        if kind == "tcp":
            _raw(_libc.connect(fd, address, len(address)))
            _raw(_libc.send(fd, payload, len(payload), 0))
        else:
            _raw(_libc.sendto(fd, payload, len(payload), 0, address, len(address)))
    finally:
        _libc.close(fd)


def _raw_read_reference():
    fd = _raw(_libc.open(ATTACK["reference"].encode(), os.O_RDONLY))
    print("the reference says:", os.read(fd, 1 << 16).decode("utf-8", "replace"))


_try("tcp", _tcp)
_try("udp", _udp)
_try("read the reference", _read_reference)
_try("signal the victim", lambda: os.kill(ATTACK["victim"], signal.SIGTERM))
_try("signal the parent", lambda: os.kill(os.getppid(), signal.SIGTERM))
_try("signal everyone", lambda: os.kill(-1, signal.SIGTERM))
_try("tcp (raw)", lambda: _raw_send("tcp", b"leak"))
_try("udp (raw)", lambda: _raw_send("udp", b"leak"))
_try("read the reference (raw)", _raw_read_reference)
_try("signal the victim (raw)", lambda: _raw(_libc.kill(ATTACK["victim"], signal.SIGTERM)))
_try("signal the parent (raw)", lambda: _raw(_libc.kill(os.getppid(), signal.SIGTERM)))
_try("signal everyone (raw)", lambda: _raw(_libc.kill(-1, signal.SIGTERM)))
_try("the secret", _secret)
_try("overwrite the outputs", _overwrite_outputs)
print("\n".join(_log))
