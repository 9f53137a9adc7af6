# base: reference
# Tries: to hang the grader. paragraph_hash loops forever.
# Expected verdict: the checks that hash a paragraph end as "timeout" with "paragraph_hash() did not
# answer within N s"; once the submission's time budget is used up, the rest time out at once.


def paragraph_hash(p):
    while True:
        pass
