#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu 22.04 by default;
# older images are 18.04 and 20.04). It fails the build, loudly, whenever the image could not grade:
# a setup problem must never reach a student's grade. It needs no network but for apt (a Python,
# bubblewrap): the harness and every Python package it runs on come from the bundle.
#
#  1. The Python the bundle was tested on (provenance.json: "python", e.g. 3.11), which every user
#     can run (the grading worker runs as its own unprivileged uid): one already on PATH; else apt
#     (python3.11 is in Ubuntu 22.04's universe, python3.12 is 24.04's own); else the deadsnakes PPA.
#  2. bubblewrap where apt has it (the strongest isolation tier; Gradescope's containers may forbid
#     its namespaces, and the grader then falls back to Landlock and seccomp, probing at run time).
#  3. The bundle's wheels (wheels/: the harness and exactly the releases it was tested with), with
#     pip's index off and every hash checked (requirements.lock), into a venv only root can read: the
#     reference stays out of the worker's reach whatever the tier. The bundle's folder is closed too.
#  4. The installed set checked against provenance.json's digest: the same releases, or the build fails.
#  5. The bundled reference graded once, through the preflight (which imports each package the course
#     allows, allowed.txt, inside the sandbox): full marks, or the build fails.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${DEDUP_HARNESS_VENV:-/autograder/dedup-harness-venv}"

say() { echo "setup.sh: $*" >&2; }

# The tested version, read without a Python (there may be none yet): "python": "3.11" in provenance.json.
target="$(sed -n 's/^ *"python": "\([0-9.]*\)".*/\1/p' "$here/provenance.json")"
if [ -z "$target" ]; then
    say "FAILED: provenance.json names no Python version: the bundle is damaged; build it again"
    exit 1
fi

suitable() {
    "$1" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info[:2] != tuple(map(int, sys.argv[1].split("."))))' \
        "$target" >/dev/null 2>&1
}

find_python() {
    for candidate in "python$target" python3; do
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
    apt-get install -y -qq "python$target" "python$target-venv" || say "apt has no python$target here"
    python="$(find_python || true)"
    if [ -z "$python" ]; then
        say "no Python $target in this image's archive: trying the deadsnakes PPA"
        apt-get install -y -qq software-properties-common \
            && add-apt-repository -y ppa:deadsnakes/ppa \
            && apt-get update -qq \
            && apt-get install -y -qq "python$target" "python$target-venv" \
            || say "the deadsnakes PPA could not be used"
        python="$(find_python || true)"
    fi
fi
if [ -z "$python" ]; then
    say "FAILED: no Python $target with venv could be installed (the bundle's wheels are for $target); choose Ubuntu 22.04, or build the bundle with --python for this image's Python"
    exit 1
fi
say "the grader and its worker run on $python ($("$python" -c 'import sys; print(sys.version.split()[0])'))"

if ! command -v bwrap >/dev/null && command -v apt-get >/dev/null; then
    apt-get install -y -qq bubblewrap || say "bubblewrap could not be installed: the grader will use a weaker tier"
fi

"$python" -m venv "$venv"
# No index, and no other source pip may be configured with: the bundle's wheels, each hash checked.
if ! PIP_CONFIG_FILE=/dev/null "$venv/bin/python" -m pip install --quiet --no-index --isolated \
    --find-links "$here/wheels" --require-hashes --only-binary=:all: -r "$here/requirements.lock"; then
    say "FAILED: the bundle's wheels could not be installed (pip's message is above)"
    exit 1
fi
chmod -R go-rwx "$venv" "$here"

installed="$("$venv/bin/python" -m dedup_harness.core.provenance | sed -n 's/.*"digest": "\([^"]*\)".*/\1/p')"
tested="$(sed -n 's/^ *"digest": "\([^"]*\)".*/\1/p' "$here/provenance.json")"
if [ "$installed" != "$tested" ]; then
    say "FAILED: the installed dependency set ($installed) is not the tested one ($tested)"
    exit 1
fi
say "installed without an index: the tested releases, dependencies $tested"

allow=()
if [ -f "$here/allowed.txt" ]; then
    while read -r name; do if [ -n "$name" ]; then allow+=(--allow "$name"); fi; done < "$here/allowed.txt"
fi
reference="$("$venv/bin/python" -c 'from dedup_harness.core.paths import IMPL_ROOT; print(IMPL_ROOT / "corpus" / "dedup.py")')"
report="$(mktemp)"
if ! "$venv/bin/dedup-harness" grade "$reference" --jobs 1 --json "$report" "${allow[@]}"; then
    say "FAILED: the grader could not grade the bundled reference here (its message is above)"
    exit 1
fi
if ! "$venv/bin/python" -c 'import json, sys; s = json.load(open(sys.argv[1]))["submissions"][0]; sys.exit(s["score"] != s["max_score"])' "$report"; then
    say "FAILED: the bundled reference did not get full marks here"
    exit 1
fi
rm -f "$report"
say "ready: the bundled reference gets full marks"
