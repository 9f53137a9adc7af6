# base: reference
# Tries: to crash the grader. paragraph_hash writes to address 16 through ctypes (a segmentation fault).
# Expected verdict: the checks that hash a paragraph error with "was killed by SIGSEGV"; a fresh
# worker serves the next check (an empty input, which hashes nothing, passes).
import ctypes


def paragraph_hash(p):
    ctypes.memset(16, 0, 1)  # write to address 16
    return b""
