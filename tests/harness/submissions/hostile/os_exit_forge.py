# base: reference
# Tries: to forge a pass the way in-process autograders fall for: os._exit(0) in the middle of a
# call, before any result is written.
# Expected verdict: the checks it hits error with "the worker exited with status 0 during ...";
# the grader's results are complete.
import os


def paragraph_hash(p):
    os._exit(0)
