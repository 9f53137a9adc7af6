#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu 22.04 by default;
# older images are 18.04 and 20.04). It fails the build, loudly, whenever the image could not grade:
# a setup problem must never reach a student's grade.
#
#  1. A Python >= 3.11 that every user can run (the grading worker runs as its own unprivileged uid):
#     one already on PATH; else apt: python3.12 (Ubuntu 24.04's own), python3.11 (Ubuntu 22.04's
#     universe); else the deadsnakes PPA (Ubuntu 18.04 and 20.04 have no 3.11 in their own archive).
#  2. bubblewrap where apt has it (the strongest isolation tier; Gradescope's containers may forbid
#     its namespaces, and the grader then falls back to Landlock and seccomp, probing at run time).
#  3. The bundled harness, into a venv only root can read: the reference stays out of the worker's
#     reach whatever the tier. The bundle's own source folder is closed the same way.
#  4. The bundled reference graded once, through the preflight: full marks, or the build fails.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${DEDUP_HARNESS_VENV:-/autograder/dedup-harness-venv}"

say() { echo "setup.sh: $*" >&2; }

suitable() {
    "$1" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1
}

find_python() {
    for candidate in python3.14 python3.13 python3.12 python3.11 python3; do
        if command -v "$candidate" >/dev/null && suitable "$(command -v "$candidate")"; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

python="$(find_python || true)"
if [ -z "$python" ] && command -v apt-get >/dev/null; then
    apt-get update -qq || say "apt-get update failed; trying what the image's lists hold"
    for version in 3.12 3.11; do
        if apt-get install -y -qq "python$version" "python$version-venv"; then break; fi
    done
    python="$(find_python || true)"
    if [ -z "$python" ]; then
        say "no Python >= 3.11 in this image's archive: trying the deadsnakes PPA"
        apt-get install -y -qq software-properties-common \
            && add-apt-repository -y ppa:deadsnakes/ppa \
            && apt-get update -qq \
            && apt-get install -y -qq python3.11 python3.11-venv \
            || say "the deadsnakes PPA could not be used"
        python="$(find_python || true)"
    fi
fi
if [ -z "$python" ]; then
    say "FAILED: no Python >= 3.11 with venv could be installed; choose a newer base image (Ubuntu 22.04)"
    exit 1
fi
say "the grader and its worker run on $python ($("$python" -c 'import sys; print(sys.version.split()[0])'))"

if ! command -v bwrap >/dev/null && command -v apt-get >/dev/null; then
    apt-get install -y -qq bubblewrap || say "bubblewrap could not be installed: the grader will use a weaker tier"
fi

"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "$here/dedup-harness"
chmod -R go-rwx "$venv" "$here"

reference="$("$venv/bin/python" -c 'from dedup_harness.core.paths import IMPL_ROOT; print(IMPL_ROOT / "corpus" / "dedup.py")')"
report="$(mktemp)"
if ! "$venv/bin/dedup-harness" grade "$reference" --jobs 1 --json "$report"; then
    say "FAILED: the grader could not grade the bundled reference here (its message is above)"
    exit 1
fi
if ! "$venv/bin/python" -c 'import json, sys; s = json.load(open(sys.argv[1]))["submissions"][0]; sys.exit(s["score"] != s["max_score"])' "$report"; then
    say "FAILED: the bundled reference did not get full marks here"
    exit 1
fi
rm -f "$report"
say "ready: the bundled reference gets full marks"
