# base: reference
# Tries: to kill the grader: SIGKILL to its parent, to pid 1, to every pid up to 4096 and to its
# own process group, on every call of paragraph_hash; then answers honestly.
# Expected verdict: the grader survives (every check has an outcome), "tried to send signal"
# attempts are reported; the checks that only need a correct answer pass.
import os
import signal

_honest = paragraph_hash


def paragraph_hash(p):
    mine = {int(task) for task in os.listdir("/proc/self/task")}  # its own threads: not the target
    for pid in [os.getppid(), 1, *range(2, 4096)]:
        if pid not in mine:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    return _honest(p)
