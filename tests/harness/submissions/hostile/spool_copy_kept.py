# base: reference
# Tries: to keep a copy of its input that outlives the stage where the spool check does not look. It
# spools under spool_dir as the reference does, and removes that spool; but it also copies every
# document it reads into a folder made with tempfile.mkdtemp() (no dir: the temp folder, which is the
# worker's home) and into a file beside spool_dir (in the check's own folder, in the session: where
# it may write there, as a non-root grader's worker of the grader's own uid may), and removes neither.
# Expected verdict: the spool check fails, naming what was left and where; every other check passes.
import json
import os
import tempfile

_reference_exact_dedup = exact_dedup  # noqa: F821 (the reference's, defined above this part)


def exact_dedup(docs, bloom_bytes_per_item=10, *, spool_dir=None, stats=None):
    places = [os.path.join(tempfile.mkdtemp(prefix="kept-"), "docs.jsonl")]
    if spool_dir is not None:
        places.append(os.path.join(os.path.dirname(os.path.abspath(spool_dir)), "kept-docs.jsonl"))

    def keeping(source):
        copies = []
        for path in places:
            try:
                copies.append(open(path, "a", encoding="utf-8"))
            except OSError:
                pass  # not writable here: the other copy will do
        try:
            for doc in source:
                for copy in copies:
                    copy.write(json.dumps({"id": doc.id, "text": doc.text}) + "\n")
                yield doc
        finally:
            for copy in copies:
                copy.close()

    return _reference_exact_dedup(keeping(docs), bloom_bytes_per_item, spool_dir=spool_dir, stats=stats)
