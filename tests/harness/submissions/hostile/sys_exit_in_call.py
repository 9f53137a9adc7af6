# base: reference
# Tries: to end the run early: paragraph_hash calls sys.exit(0) (a pass, if anyone took the exit
# status for a verdict).
# Expected verdict: the checks that hash a paragraph error with "raised SystemExit(0)" and an
# "exit" event; the worker lives on.
import sys


def paragraph_hash(p):
    sys.exit(0)
