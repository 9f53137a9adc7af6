# base: reference
# Tries: to keep its refused attempts off the report. It silences the worker's audit hook (replacing
# AuditHook.judge, so the hook neither refuses nor notes anything), then at import opens TCP and UDP
# sockets and signals its parent, everyone and the next pid, through Python and through libc
# (ctypes), which no audit hook sees. Every signal is signal 0 (it only asks whether a process
# exists) and no socket connects anywhere: harmless even where nothing refused them. The test sets
# SILENCE to False to grade the same actions with the hook left alone.
# Expected verdict: full marks; every action blocked (EPERM); where the kernel reports refusals to
# the grader, each refused call is listed all the same.
import sys

SILENCE = True
if SILENCE:  # before anything else, so the hook notes nothing at all
    sys.modules["grading_worker.audit"].AuditHook.judge = lambda self, event, args: (None, False)

import ctypes  # noqa: E402
import errno  # noqa: E402
import os  # noqa: E402
import socket  # noqa: E402

_log = []
_libc = ctypes.CDLL(None, use_errno=True)


def _raw(result):
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
    return result


def _try(name, action):
    try:
        action()
        _log.append(f"{name}: REACHED")
    except OSError as error:
        _log.append(f"{name}: blocked ({errno.errorcode.get(error.errno, error.errno)})")


_try("tcp", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
_try("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close())
_try("signal the parent", lambda: os.kill(os.getppid(), 0))
_try("signal everyone", lambda: os.kill(-1, 0))
_try("tcp (raw)", lambda: _libc.close(_raw(_libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0))))
_try("udp (raw)", lambda: _libc.close(_raw(_libc.socket(socket.AF_INET, socket.SOCK_DGRAM, 0))))
_try("signal the next pid (raw)", lambda: _raw(_libc.kill(os.getpid() + 1, 0)))  # never itself
print("\n".join(_log))
