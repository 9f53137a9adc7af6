#!/usr/bin/env bash
# Run once, as root, when the image is built (the Dockerfile's RUN): bubblewrap where apt has it (the
# strongest isolation tier; where the container forbids its namespaces the grader falls back to Landlock
# and seccomp, probing at run time), then the bundle's wheels (the harness's dependencies, exactly the
# releases tested) with pip's index off and every hash checked (requirements.lock), into a venv only root
# can read. DEDUP_HARNESS_VENV and DEDUP_HARNESS_PYTHON point elsewhere for a test.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${DEDUP_HARNESS_VENV:-/opt/dedup-harness/venv}"
if ! command -v bwrap >/dev/null && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
fi
"${DEDUP_HARNESS_PYTHON:-python3}" -m venv "$venv"
# The harness's own line of the lock is the entrypoint's: its wheel is in the course's files, not here.
grep -v '^dedup-harness==' "$here/requirements.lock" > "$here/dependencies.lock"
PIP_CONFIG_FILE=/dev/null "$venv/bin/python" -m pip install --quiet --no-index --isolated --no-compile \
    --find-links "$here/wheels" --require-hashes --only-binary=:all: -r "$here/dependencies.lock"
chmod -R go-rwx "$venv"
echo "install.sh: the tested releases installed without an index in $venv" >&2
