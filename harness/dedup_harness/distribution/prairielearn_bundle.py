"""PrairieLearn's external grader: the image a course builds, the course's own files, the question's options.

The Gradescope bundle's files, laid out for PrairieLearn (docs/prairielearn-bundle.md): images on Docker Hub are
public, so the image holds the dependencies alone, and the harness's wheel (the reference inside) is the course's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from dedup_harness.distribution import gradescope_bundle

IMAGE = "image"
COURSE = "serverFilesCourse/dedup-harness"  # PrairieLearn copies it to /grade/serverFilesCourse/dedup-harness
FILES = Path(__file__).with_name("prairielearn_files")  # the scripts, and info.json: @IMAGE@ and @PYTHON@ filled
SCRIPTS = ("info.json", f"{IMAGE}/Dockerfile", f"{IMAGE}/install.sh", f"{COURSE}/grade.sh")


def contents(*, image: str, **options: Any) -> list[tuple[str, bytes]]:
    """The folder's files (path, bytes) for the image ``image``, with ``gradescope_bundle.contents``' options."""
    filled = {"@IMAGE@": image, "@PYTHON@": options.get("python") or gradescope_bundle.python_now()}
    text = [(place, (FILES / Path(place).name).read_text(encoding="utf-8")) for place in SCRIPTS]
    placed = [(place, re.sub("@[A-Z]+@", lambda mark: filled[mark[0]], script).encode()) for place, script in text]
    for name, data, _ in gradescope_bundle.contents(**options):
        if name == "requirements.lock":  # the image installs all but the harness's line, the entrypoint that line
            placed += [(f"{IMAGE}/{name}", data), (f"{COURSE}/{name}", data)]
        elif name.startswith(gradescope_bundle.WHEELS) and not name.startswith(f"{gradescope_bundle.WHEELS}/dedup_"):
            placed.append((f"{IMAGE}/{name}", data))
        elif name not in ("setup.sh", "run_autograder"):
            placed.append((f"{COURSE}/{Path(name).name}", data))
    return placed
