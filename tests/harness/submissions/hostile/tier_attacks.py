# base: reference
# Tries, at import, everything a submission must not manage in any tier: TCP and UDP to listeners of
# the grader's on 127.0.0.1, reading the installed reference, signalling the grader's processes (a
# victim of the grader's user, its parent, everyone it may), finding a secret in the grader's
# environment, and overwriting the grader's output files. The test fills in ATTACK (ports, paths,
# pids) before grading. Its functions are the reference's: when every attack fails it gets full marks.
# Expected verdict: full marks; every line of its log says "blocked"; nothing reached the targets.
import os
import signal
import socket

ATTACK = None  # the test puts its targets here
_log = []


def _try(name, action):
    try:
        action()
        _log.append(f"{name}: REACHED")
    except Exception as error:
        _log.append(f"{name}: blocked ({type(error).__name__})")


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


_try("tcp", _tcp)
_try("udp", _udp)
_try("read the reference", _read_reference)
_try("signal the victim", lambda: os.kill(ATTACK["victim"], signal.SIGTERM))
_try("signal the parent", lambda: os.kill(os.getppid(), signal.SIGTERM))
_try("signal everyone", lambda: os.kill(-1, signal.SIGTERM))
_try("the secret", _secret)
_try("overwrite the outputs", _overwrite_outputs)
print("\n".join(_log))
