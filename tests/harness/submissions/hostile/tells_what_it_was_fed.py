# base: reference
# Tries: to carry the cases a course holds back into what students see. It notes the first document of
# every input it is fed, prints each note, and raises every note it has from paragraph_hash on the
# chapter's worked example (check 1, public), so a worker that had run held-back cases before would
# show them in a visible test's output.
# Expected verdict (grade --hidden-seed): check 1 lost on its own crash; nothing a student reads before
# the due date holds a note the held-back run printed (that run's output is held_back_output, for staff).
import itertools

_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)
_reference_paragraph_hash = paragraph_hash  # noqa: F821
_fed = []


def exact_dedup(docs, bloom_bytes_per_item=10, **options):
    docs = iter(docs)
    first = next(docs, None)
    if first is not None:
        note = f"fed {first.id}: {first.text[:60]!r}"
        _fed.append(note)
        print(note, flush=True)
        docs = itertools.chain([first], docs)
    return _reference_exact_dedup(docs, bloom_bytes_per_item, **options)


def paragraph_hash(p):
    if p == "The cat sat." and _fed:
        raise ValueError("what I was fed: " + " | ".join(_fed))
    return _reference_paragraph_hash(p)
