"""The plain script that `dedup-harness dedup` is measured against (its goal: README.md here): a set of paragraph texts.

    python benchmarks/plain_dedup.py IN.jsonl OUT.jsonl

json.loads a line, keep the paragraphs not seen before, json.dumps the record out. The paragraph split
is the stage's (``impl/corpus/dedup.py``), so the output is byte for byte the command's.
"""

import json
import re
import sys

BLANK_LINES = re.compile(r"\n(?:[ \t]*\r?\n)+")  # the stage's paragraph break


def dedup(source: str, target: str) -> dict[str, int]:
    seen: set[str] = set()
    docs = paragraphs = 0
    with open(source, encoding="utf-8") as lines, open(target, "w", encoding="utf-8") as out:
        for line in lines:
            record = json.loads(line)
            found = [p for p in map(str.strip, BLANK_LINES.split(record["text"])) if p]
            kept = []
            for p in found:
                if p not in seen:
                    seen.add(p)
                    kept.append(p)
            docs, paragraphs = docs + 1, paragraphs + len(found)
            if kept or not found:  # a document that loses every paragraph is dropped
                text = record["text"] if len(kept) == len(found) else "\n\n".join(kept)
                doc = {"id": record["id"], "text": text, "meta": record.get("meta", {})}
                out.write(json.dumps(doc, ensure_ascii=False) + "\n")
    return {"docs_in": docs, "paragraphs": paragraphs}


if __name__ == "__main__":
    print(dedup(*sys.argv[1:3]))
