# base: reference
# Tries: to keep running after the checks: a thread that never ends, started at import, keeps
# rewriting a forged results file.
# Expected verdict: a "threads" event; the checks pass (the functions are honest); the grader
# does not wait for the thread.
import json
import threading
import time


def _linger():
    while True:
        try:
            with open("results.json", "w") as f:
                json.dump({"score": 100}, f)
        except OSError:
            pass
        time.sleep(0.01)


threading.Thread(target=_linger, name="lingerer", daemon=False).start()
