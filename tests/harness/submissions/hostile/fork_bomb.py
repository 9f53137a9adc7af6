# base: reference
# Tries: to exhaust the process table. paragraph_hash forks without end, in every child too.
# Expected verdict: "timeout" (the process limit stops the forks, the loop never returns), a
# "started a process" attempt, and no process of the worker's uid left afterwards.
import os


def paragraph_hash(p):
    while True:
        try:
            os.fork()
        except OSError:
            pass
